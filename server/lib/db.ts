import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type Driver,
} from 'kysely';
import type { PoolClient } from 'pg';
import { precompiledTexts } from './precompiled';
import { DurableCommits, durableStores, type DurableOptions } from './db-sync';
import { ScopedSqliteDriver, scopedDrivers } from './db-scope';
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
export { inOneTransaction, outsideTransactionScope } from './db-scope';

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
