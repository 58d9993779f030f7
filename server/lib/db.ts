import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type TransactionSettings,
} from 'kysely';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import { precompiledTexts } from './precompiled';
import { DurableCommits, durableStores, type DurableOptions } from './db-sync';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A schema step; it runs exactly once per database. Migrations see the database untyped, as
 * Kysely recommends, since they describe tables before the typed interface applies.
 */
export interface Migration {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>): Promise<void>;
}

export type Dialect = 'sqlite' | 'postgres';

const SYNCHRONOUS = { full: 'FULL', normal: 'NORMAL', process: 'OFF' } as const;

export interface OpenDbOptions {
  /** `:memory:`, a file path, or a `postgres://` URL. */
  url: string;
  /** PostgreSQL only: connections this process may open (default 10). */
  poolSize?: number;
  /**
   * SQLite only (default on): reuse prepared statements by SQL text (Kysely prepares one per
   * query, which dominates the cost of small queries). Safe while nothing streams results with
   * `.stream()` (nothing does).
   */
  cacheStatements?: boolean;
  /**
   * SQLite only; every level survives a crash or restart of the process. `full` (a file only):
   * each commit is on disk before it returns, so an OS crash or power loss loses nothing
   * committed: for money (the BFF's default). The fsync runs on the thread pool and is shared
   * by the commits that wait at once (`DurableCommits`, server/lib/db-sync.ts); a holder may
   * ask not to wait (`withoutWaitingForDisk`, `answerBeforeDisk`). `normal`
   * (default here): `synchronous = NORMAL`, an OS crash or power loss may lose the commits since
   * the last checkpoint (up to 1,000 WAL pages), never damage the file. `process`:
   * `synchronous = OFF`, an OS crash or power loss may lose or damage the file; checkpoints
   * then skip the fsyncs that otherwise stall the event loop for tens of ms every thousand
   * pages. For the sandbox's test data, never for a merchant's.
   */
  durability?: 'full' | 'normal' | 'process';
  /**
   * PostgreSQL only (default on): the statements of `precompiled` queries are prepared by name
   * once per connection, so the server parses and plans them once instead of on every call.
   * Off behind a pooler that hands one session's statements to another (PgBouncer in
   * transaction mode before 1.21, or without `max_prepared_statements`).
   */
  namedStatements?: boolean;
  /**
   * PostgreSQL only: told when a connection idle in the pool dies (a server restart or
   * failover, `pg_terminate_backend`, an idle timeout on the way). The pool drops it and opens
   * another on the next query; without a listener node-postgres would crash the process.
   */
  onIdleConnectionError?: (err: Error) => void;
  /**
   * SQLite `full` only: how its commits reach the disk (`DurableOptions`: when a commit may
   * sync inline or answer before its fsync, who hears of a failed one; tests: the fsync itself).
   */
  durable?: DurableOptions;
}

export interface OpenedDb<DB> {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** Opens SQLite (file or memory) or PostgreSQL behind one Kysely interface. */
export async function openDb<DB>({
  url,
  poolSize = 10,
  cacheStatements = true,
  durability = 'normal',
  namedStatements = true,
  onIdleConnectionError = () => {},
  durable: durableOptions,
}: OpenDbOptions): Promise<OpenedDb<DB>> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import('pg');
    // BIGINT as number: every counter here stays far below 2^53.
    pg.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pg.Pool({ connectionString: url, max: poolSize });
    pool.on('error', onIdleConnectionError);
    if (namedStatements) pool.on('connect', nameStatements);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (url !== ':memory:') {
    // The store holds cardholder names, PaRes while a challenge waits, webhook bodies: for its
    // owner only. SQLite gives its -wal and -shm files the main file's permissions.
    mkdirSync(dirname(url), { recursive: true, mode: 0o700 });
    closeSync(openSync(url, 'a', 0o600));
  }
  const database = new SQLite(url);
  database.pragma('journal_mode = WAL');
  const durable =
    durability === 'full' && url !== ':memory:'
      ? new DurableCommits(database, url, durableOptions)
      : undefined;
  // A durable store syncs itself, off the event loop: the connection need not.
  database.pragma(`synchronous = ${durable ? 'NORMAL' : SYNCHRONOUS[durability]}`);
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Deleted and overwritten values are zeroed on disk, not left in free space.
  database.pragma('secure_delete = ON');
  if (cacheStatements) cachePreparedStatements(database);
  const driver = new ScopedSqliteDriver(new SqliteDialect({ database }).createDriver(), durable);
  const dialect = new (class extends SqliteDialect {
    override createDriver(): Driver {
      return driver;
    }
  })({ database });
  const db = new Kysely<DB>({ dialect });
  scopedDrivers.set(db, driver);
  sqliteHandles.set(db, database);
  if (durable) durableStores.set(db, durable);
  const close = async () => {
    await db.destroy();
    durable?.close();
  };
  return { db, dialect: 'sqlite', close };
}

/**
 * Sends the text of a `precompiled` query as a statement named after it: node-postgres
 * prepares it on the connection's first use and only binds it afterwards. Texts with a `*`
 * stay unnamed: their result type would change when a migration adds a column, which a
 * named statement answers with an error until prepared again.
 */
function nameStatements(client: PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      const name = precompiledTexts.get(text);
      if (name !== undefined && !text.includes('*')) return query({ name, text, values });
    }
    return query(...args);
  }) as typeof client.query;
}

const sqliteHandles = new WeakMap<object, SQLite.Database>();

/**
 * After a secret was cleared from a row (a PaRes once used): SQLite's WAL still holds the page
 * images written before, so checkpoint and truncate it; with `secure_delete` the main file keeps
 * no copy either. PostgreSQL, or a `db` not from `openDb`: nothing to do. Best effort: a busy
 * WAL is truncated by the next call.
 */
export function scrubWal(db: object): void {
  const database = sqliteHandles.get(db);
  if (!database || database.memory || !database.open) return;
  try {
    database.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    /* inside a transaction or busy: the next scrub or checkpoint will do */
  }
}

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
const scopedDrivers = new WeakMap<object, ScopedSqliteDriver>();

/** Kysely's SQLite driver, re-entrant for the flow running in an `inOneTransaction` scope. */
class ScopedSqliteDriver implements Driver {
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

const STATEMENT_CACHE_SIZE = 500;

/** Makes `prepare` answer the same statement for the same SQL text (bounded, oldest out). */
function cachePreparedStatements(database: SQLite.Database): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SQLite.Statement>();
  database.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  }) as typeof database.prepare;
}

/**
 * An INSERT of a fixed column list in SQLite's SQL, its text built once per row count, for hot
 * paths where Kysely's per-call query building costs more than the statement itself. Run the
 * result with `db.executeQuery(...)` (it joins transactions and scopes like any query). Missing
 * values insert NULL.
 */
export function sqliteInsert<Row extends object>(
  table: string,
  columns: readonly (keyof Row & string)[],
): (rows: readonly Row[]) => CompiledQuery {
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const texts = new Map<number, string>();
  return (rows) => {
    if (rows.length === 0) throw new Error(`sqliteInsert(${table}): no rows`);
    let text = texts.get(rows.length);
    if (text === undefined) {
      text = head + Array.from({ length: rows.length }, () => tuple).join(', ');
      if (texts.size < 64) texts.set(rows.length, text);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const c of columns) parameters.push(row[c] ?? null);
    return CompiledQuery.raw(text, parameters);
  };
}

export { migrate } from './migrate';

/** True when `db` talks to PostgreSQL (else SQLite). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** True when an error is a unique-constraint violation in SQLite or PostgreSQL. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown };
  return (
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e.code === '23505'
  );
}
