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

/** The tables whose rows are the money state: sessions, attempts, challenges, events, inbox. */
const MONEY_TABLES = [
  'checkout_sessions',
  'payment_attempts',
  'challenges',
  'bff_events',
  'webhook_inbox',
] as const;

/**
 * A crash at the `k`-th row written to the money tables: that write and every later one fail
 * (a process that stopped writes nothing more), until `disarm`. `written()` says how many rows
 * were written since arming (arm with a large `k` to count a flow's writes). Triggers on
 * SQLite or PostgreSQL; the count lives in a table of its own, so a write's own transaction
 * rolling back takes its count back too.
 */
export async function armFailpoint(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  k: number,
): Promise<{ written(): Promise<number>; disarm(): Promise<void> }> {
  await sql`create table if not exists test_failpoint (n integer not null)`.execute(db);
  await sql`delete from test_failpoint`.execute(db);
  await sql`insert into test_failpoint (n) values (${k})`.execute(db);
  const pg = isPostgres(db);
  if (pg) {
    await sql`create or replace function test_failpoint() returns trigger as $$
      begin
        if (select n from test_failpoint) <= 1 then raise exception 'injected failure'; end if;
        update test_failpoint set n = n - 1;
        if tg_op = 'DELETE' then return old; end if;
        return new;
      end $$ language plpgsql`.execute(db);
  }
  for (const table of MONEY_TABLES) {
    for (const op of ['insert', 'update', 'delete']) {
      const name = sql.raw(`test_failpoint_${table}_${op}`);
      if (pg) {
        await sql`create trigger ${name} before ${sql.raw(op)} on ${sql.table(table)}
          for each row execute function test_failpoint()`.execute(db);
      } else {
        await sql`create trigger ${name} before ${sql.raw(op)} on ${sql.table(table)} begin
          select raise(abort, 'injected failure') where (select n from test_failpoint) <= 1;
          update test_failpoint set n = n - 1;
        end`.execute(db);
      }
    }
  }
  return {
    async written() {
      const r = await sql<{ n: number }>`select n from test_failpoint`.execute(db);
      return k - Number(r.rows[0]!.n);
    },
    async disarm() {
      for (const table of MONEY_TABLES) {
        for (const op of ['insert', 'update', 'delete']) {
          const name = sql.raw(`test_failpoint_${table}_${op}`);
          if (pg) await sql`drop trigger if exists ${name} on ${sql.table(table)}`.execute(db);
          else await sql`drop trigger if exists ${name}`.execute(db);
        }
      }
    },
  };
}
