import { sql, type Kysely } from 'kysely';
import { fullSyncStores } from './db';

/**
 * Runs `fn` with `db`'s own connection held, SQLite's fsync per commit off for its writes and
 * on again before anything else may use the connection: for writes whose loss to an OS crash
 * or power cut costs nothing, because nothing depends on them (a rate-limit window) or because
 * the durable commit that acts on them makes them durable too (an idempotency claim before the
 * claim of a payment: the WAL is written in order and synced whole). Every other write keeps
 * the store's `synchronous = FULL`. An fsync here is ≈ 190 µs with the event loop blocked; a
 * pay skips two of its four.
 *
 * Any other store (PostgreSQL, SQLite opened `normal` or `process`), or `db` inside a
 * transaction (its commit decides): `fn(db)` as is.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function withoutWaitingForDisk<D extends Kysely<any>, T>(
  db: D,
  fn: (db: D) => Promise<T>,
): Promise<T> {
  if (db.isTransaction || !fullSyncStores.has(db)) return fn(db);
  return db.connection().execute(async (conn) => {
    await sql`pragma synchronous = NORMAL`.execute(conn);
    try {
      return await fn(conn as D);
    } finally {
      await sql`pragma synchronous = FULL`.execute(conn);
    }
  });
}
