import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../server/lib/db';

/**
 * Makes writes to `table` fail, as a full disk or a lost connection would: a database trigger,
 * on SQLite or PostgreSQL. `when` narrows it to rows matching a condition on `new` (an SQL
 * expression both dialects read, written by the test). Resolves the function that removes it.
 */
export async function failWrites(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  table: string,
  op: 'insert' | 'update' = 'insert',
  when = 'true',
): Promise<() => Promise<void>> {
  const name = sql.raw(`fail_${op}`);
  const event = sql.raw(op);
  const condition = sql.raw(when);
  if (isPostgres(db)) {
    await sql`create or replace function ${name}() returns trigger as $$
      begin raise exception 'injected failure'; end $$ language plpgsql`.execute(db);
    await sql`create trigger ${name} before ${event} on ${sql.table(table)}
      for each row when (${condition}) execute function ${name}()`.execute(db);
    return async () => {
      await sql`drop trigger if exists ${name} on ${sql.table(table)}`.execute(db);
    };
  }
  await sql`create trigger ${name} before ${event} on ${sql.table(table)} when ${condition}
    begin select raise(abort, 'injected failure'); end`.execute(db);
  return async () => {
    await sql`drop trigger if exists ${name}`.execute(db);
  };
}
