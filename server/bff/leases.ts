import { sql, type Kysely } from 'kysely';
import type { Migration } from '../lib/db';

/**
 * Leases: work that one instance at a time should do (the maintenance round) is led by whoever
 * holds its lease in the store. A holder renews it each round and while a round runs; if it
 * dies, the lease lapses and the next instance to ask takes it; if it stops cleanly, it gives
 * the lease up. One row per lease name.
 */
export interface LeaseTables {
  bff_leases: { name: string; holder: string; until: string };
}

export const leaseMigrations: Migration[] = [
  {
    name: 'bff_leases_0001',
    async up(db) {
      await db.schema
        .createTable('bff_leases')
        .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('holder', 'varchar(64)', (c) => c.notNull())
        .addColumn('until', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
];

/**
 * Takes or renews the lease `name` for `holder` until `now + ttlMs`, if it is free, lapsed or
 * already `holder`'s. True when `holder` holds it now. One statement (an upsert whose update
 * is conditional), atomic on SQLite and PostgreSQL alike.
 */
export async function acquireLease(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  name: string,
  holder: string,
  ttlMs: number,
  now: Date,
): Promise<boolean> {
  const until = new Date(now.getTime() + ttlMs).toISOString();
  const res = await sql<{ holder: string }>`
    insert into bff_leases (name, holder, until) values (${name}, ${holder}, ${until})
    on conflict (name) do update set holder = excluded.holder, until = excluded.until
    where bff_leases.until < ${now.toISOString()} or bff_leases.holder = excluded.holder
    returning holder`.execute(db);
  return res.rows[0]?.holder === holder;
}

/**
 * Gives the lease `name` up if `holder` holds it (a clean stop): the next instance to ask
 * takes it at once rather than when it would have lapsed.
 */
export async function releaseLease(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  name: string,
  holder: string,
): Promise<void> {
  await sql`update bff_leases set until = ${new Date(0).toISOString()}
    where name = ${name} and holder = ${holder}`.execute(db);
}
