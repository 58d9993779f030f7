// `inOneTransaction`: the SQLite driver behind `openDb` (server/lib/db.ts), re-entrant for
// the flow running in a scope, which shares one transaction and one commit with the scopes
// started in the same turn of the event loop (group commit).
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type TransactionSettings,
} from 'kysely';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { DurableCommits } from './db-sync';

/**
 * Runs `fn` as one SQLite transaction: every query made through `db` in its async flow (the
 * caller's and anything it awaits, e.g. event handlers using their own `ctx.db`) joins it, and
 * `db.transaction()` inside becomes a savepoint. Other flows (HTTP requests) wait until it
 * commits; a throw rolls all of `fn`'s writes back. Many small writes then cost one commit
 * instead of one each, and flows started in the same turn of the event loop share one commit
 * (group commit, at most 16; each still runs alone, in its own savepoint, and resolves only
 * once the commit is done). Everything started inside must be awaited, and nothing inside may
 * wait on another request to this database (no outbound HTTP). PostgreSQL, or a `db` not from
 * `openDb`: `fn` runs as is.
 */
export function inOneTransaction<DB, T>(db: Kysely<DB>, fn: () => Promise<T>): Promise<T> {
  const driver = scopedDrivers.get(db);
  if (!driver || scopes.getStore()?.driver === driver) return fn();
  return driver.scope(fn);
}

/** Runs `fn` outside any `inOneTransaction` scope (for work started now but run later). */
export function outsideTransactionScope<T>(fn: () => T): T {
  return scopes.exit(fn);
}

interface Scope {
  driver: ScopedSqliteDriver;
  connection: DatabaseConnection;
  open: boolean;
  /** Acquisitions of the connection made in the scope and not yet released. */
  borrowed: number;
  drained: (() => void) | null;
  savepoints: string[];
  seq: number;
}

const scopes = new AsyncLocalStorage<Scope>();
export const scopedDrivers = new WeakMap<object, ScopedSqliteDriver>();

/** Kysely's SQLite driver, re-entrant for the flow running in an `inOneTransaction` scope. */
export class ScopedSqliteDriver implements Driver {
  private initializing: Promise<void> | null = null;

  constructor(
    private readonly inner: Driver,
    private readonly durable?: DurableCommits,
  ) {}

  init(): Promise<void> {
    return (this.initializing ??= this.inner.init());
  }

  private current(connection?: DatabaseConnection): Scope | null {
    const s = scopes.getStore();
    if (!s || s.driver !== this) return null;
    if (connection && connection !== s.connection) return null;
    return s;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const s = this.current();
    if (s?.open) {
      s.borrowed++;
      return s.connection;
    }
    const connection = await this.inner.acquireConnection();
    return this.durable ? this.durable.watch(connection) : connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const s = this.current(connection);
    if (s && s.borrowed > 0) {
      s.borrowed--;
      if (s.borrowed === 0) s.drained?.();
      return;
    }
    const mustSync = this.durable?.take(connection) ?? false;
    await this.inner.releaseConnection(connection);
    // Released first: the next user runs while this one waits for the disk.
    if (mustSync) await this.durable!.sync();
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const s = this.current(connection);
    if (!s) return this.inner.beginTransaction(connection, settings);
    const name = `scope_sp${++s.seq}`;
    s.savepoints.push(name);
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const s = this.current(connection);
    if (!s) return this.inner.commitTransaction(connection);
    await connection.executeQuery(CompiledQuery.raw(`release ${s.savepoints.pop()!}`));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const s = this.current(connection);
    if (!s) return this.inner.rollbackTransaction(connection);
    const name = s.savepoints.pop()!;
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${name}`));
    await connection.executeQuery(CompiledQuery.raw(`release ${name}`));
  }

  savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.savepoint!(connection, name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  private readonly queue: ScopeJob[] = [];
  private running = false;

  /**
   * Runs `fn` in a transaction shared with the scopes that start in the same turn of the event
   * loop (group commit): each runs alone, in order, inside a savepoint of its own (the first in
   * the transaction itself), so a throw undoes that scope only; one COMMIT then makes them all
   * durable, and only after it does any of them resolve. Under concurrent load this turns many commits (each writing its dirty
   * pages to the WAL again) into one.
   */
  scope<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The flow runs later, from the group's loop: in its caller's async context (with the
      // scope's store set inside it), not in the loop's.
      // (runInAsyncScope, not AsyncResource.bind: bind makes two util.deprecate wrappers for
      // its `asyncResource` property on every call, 0.6 % of the sandbox's CPU per payment.)
      const caller = new AsyncResource('card-checkout.scope');
      this.queue.push({
        run: (s: Scope) => caller.runInAsyncScope(() => scopes.run(s, fn)),
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.running) void this.runGroups();
    });
  }

  private async runGroups(): Promise<void> {
    this.running = true;
    try {
      await this.init();
      while (this.queue.length > 0) await this.runGroup();
    } catch (err) {
      // No connection to be had (the database closed, or never opened): nothing can run.
      for (const job of this.queue.splice(0)) job.reject(err);
    } finally {
      this.running = false;
    }
  }

  private async runGroup(): Promise<void> {
    const connection = await this.inner.acquireConnection();
    // Flows whose work is in the open transaction, to settle once it commits.
    const ran: { job: ScopeJob; ok: boolean; value: unknown }[] = [];
    let current: ScopeJob | undefined;
    try {
      await this.inner.beginTransaction(connection, {});
      for (let seq = 1; ; seq++) {
        current = this.queue.shift();
        if (!current && ran.length < GROUP_MAX) {
          // Flows started in this turn of the event loop join before the commit.
          await new Promise<void>((r) => setImmediate(r));
          current = this.queue.shift();
        }
        if (!current) break;
        const job = current;
        if (ran.length === 0) {
          // The first flow runs in the transaction itself: a savepoint would make SQLite copy
          // every page it changes, and a throw can roll back the whole (still empty) group.
          const r = await this.runScoped(connection, job.run, null);
          if (!r.ok) {
            await this.inner.rollbackTransaction(connection);
            current = undefined;
            job.reject(r.value);
            await this.inner.beginTransaction(connection, {});
            continue;
          }
          ran.push({ job, ...r });
        } else {
          ran.push({ job, ...(await this.runScoped(connection, job.run, `grp_${seq}`)) });
        }
        current = undefined;
        if (ran.length >= GROUP_MAX) break;
      }
      await this.inner.commitTransaction(connection);
      if (ran.length > 0) this.durable?.committed();
    } catch (err) {
      // BEGIN, a savepoint or COMMIT failed: nothing of the group is durable. A BEGIN that
      // fails before any flow ran fails every waiting flow (the database is unusable); taking
      // none would loop here for ever.
      await this.inner.rollbackTransaction(connection).catch(() => undefined);
      for (const r of ran) r.job.reject(err);
      current?.reject(err);
      if (ran.length === 0 && !current) for (const job of this.queue.splice(0)) job.reject(err);
      return;
    } finally {
      await this.inner.releaseConnection(connection);
    }
    try {
      if (ran.length > 0) await this.durable?.sync();
    } catch (err) {
      // Committed but not known to be on disk: no flow is told it is done.
      for (const r of ran) r.job.reject(err);
      return;
    }
    for (const r of ran) {
      if (r.ok) r.job.resolve(r.value);
      else r.job.reject(r.value);
    }
  }

  /** Runs one flow in the scope of `connection`, inside savepoint `name` unless null. */
  private async runScoped(
    connection: DatabaseConnection,
    run: (scope: Scope) => Promise<unknown>,
    name: string | null,
  ): Promise<{ ok: boolean; value: unknown }> {
    const s: Scope = {
      driver: this,
      connection,
      open: true,
      borrowed: 0,
      drained: null,
      savepoints: [],
      seq: 0,
    };
    const close = async () => {
      s.open = false;
      // Whatever the flow started in the scope finishes in it before the savepoint ends.
      while (s.borrowed > 0) await new Promise<void>((r) => (s.drained = r));
    };
    if (name) await connection.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
    try {
      const value = await run(s);
      await close();
      if (name) await connection.executeQuery(CompiledQuery.raw(`release ${name}`));
      return { ok: true, value };
    } catch (err) {
      await close();
      if (name) {
        await connection.executeQuery(CompiledQuery.raw(`rollback to ${name}`));
        await connection.executeQuery(CompiledQuery.raw(`release ${name}`));
      }
      return { ok: false, value: err };
    }
  }
}

interface ScopeJob {
  run: (scope: Scope) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Most scopes one COMMIT covers (each still runs alone, one after another). */
const GROUP_MAX = 16;
