import type { BffContext } from './context';

/**
 * Work that may run only once a transaction has committed: a delivery round on another
 * connection would not see its events before, and SQLite cannot checkpoint its WAL inside it.
 * `atomically` (server/bff/atomic.ts) runs what was asked for after the outermost commit,
 * each `name` once, and nothing after a rollback.
 */
type Hook = (ctx: BffContext) => void;

const hooks = new WeakMap<object, Map<string, Hook>>();

/**
 * Asks for `fn` to run once the transaction `db` is in commits. False when `db` is in no
 * transaction: nothing is pending, the caller decides.
 */
export function afterCommit(db: { isTransaction: boolean }, name: string, fn: Hook): boolean {
  if (!db.isTransaction) return false;
  let pending = hooks.get(db);
  if (!pending) hooks.set(db, (pending = new Map()));
  if (!pending.has(name)) pending.set(name, fn);
  return true;
}

/** Runs what transaction `trx` asked for, now that it committed. */
export function runAfterCommit(trx: object, ctx: BffContext): void {
  const pending = hooks.get(trx);
  if (!pending) return;
  hooks.delete(trx);
  for (const fn of pending.values()) fn(ctx);
}
