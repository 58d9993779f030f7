import { sql, type Kysely } from 'kysely';
import { isPostgres, type Migration } from './db';

/**
 * Runs, in order and once each, the migrations a database has not seen yet — safely when
 * several processes start on one database at the same instant (a BFF behind a load balancer):
 * the whole check-and-apply runs in one transaction that first takes a lock, so the others
 * wait, then find everything applied and run nothing.
 * - PostgreSQL: `pg_advisory_xact_lock` keyed by the current schema (two schemas of one
 *   database migrate independently), released at commit.
 * - SQLite: the transaction's first statement is a write, so it holds the write lock from the
 *   start (the others wait through `busy_timeout`; a read-then-write transaction would fail).
 * A failing migration rolls back the whole run: nothing is half-applied.
 */
export async function migrate<DB>(
  db: Kysely<DB>,
  migrations: readonly Migration[],
): Promise<string[]> {
  const names = new Set<string>();
  for (const m of migrations) {
    if (names.has(m.name)) throw new Error(`duplicate migration name ${m.name}`);
    names.add(m.name);
  }
  const postgres = isPostgres(db);
  if (!postgres) {
    await sql`create table if not exists _migrations_lock (id integer primary key, at varchar(40))`.execute(
      db,
    );
  }
  return db.transaction().execute(async (trx) => {
    if (postgres) {
      await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ':card-checkout:migrations'))`.execute(
        trx,
      );
    } else {
      await sql`insert or replace into _migrations_lock (id, at) values (1, ${new Date().toISOString()})`.execute(
        trx,
      );
    }
    await sql`create table if not exists _migrations (name varchar(200) primary key, applied_at varchar(40) not null)`.execute(
      trx,
    );
    const applied = new Set(
      (await sql<{ name: string }>`select name from _migrations`.execute(trx)).rows.map(
        (r) => r.name,
      ),
    );
    const ran: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await m.up(trx);
      await sql`insert into _migrations (name, applied_at) values (${m.name}, ${new Date().toISOString()})`.execute(
        trx,
      );
      ran.push(m.name);
    }
    return ran;
  });
}
