import { inOneTransaction, isPostgres } from '../lib/db';
import type { BffContext } from './context';
import type { BffKysely } from './db';

/**
 * Runs one step of a flow (the claim of a pay and its attempt; the outcome and its events) as
 * one transaction: its writes commit together or not at all, and cost one commit instead of
 * one each. SQLite: the group commit of `inOneTransaction`, so the steps of concurrent
 * requests started in the same turn of the event loop share a commit too. PostgreSQL: a
 * transaction, `ctx.db` being that transaction inside `fn`. Inside a transaction already: `fn`
 * joins it. Nothing inside may wait on the network.
 */
export function atomically<T>(ctx: BffContext, fn: (ctx: BffContext) => Promise<T>): Promise<T> {
  return atomicallyIn(ctx.db, (db) => fn(db === ctx.db ? ctx : { ...ctx, db }));
}

/** `atomically` for code that holds the store only. */
export function atomicallyIn<T>(db: BffKysely, fn: (db: BffKysely) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  if (!isPostgres(db)) return inOneTransaction(db, () => fn(db));
  return db.transaction().execute(fn);
}
