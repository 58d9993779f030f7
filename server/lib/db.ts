import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { mkdirSync } from 'node:fs';
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

export interface OpenDbOptions {
  /** `:memory:`, a file path, or a `postgres://` URL. */
  url: string;
  /**
   * SQLite only (default on): reuse prepared statements by SQL text (Kysely prepares one per
   * query, which dominates the cost of small queries). Safe while nothing streams results with
   * `.stream()` (nothing does).
   */
  cacheStatements?: boolean;
}

export interface OpenedDb<DB> {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** Opens SQLite (file or memory) or PostgreSQL behind one Kysely interface. */
export async function openDb<DB>({
  url,
  cacheStatements = true,
}: OpenDbOptions): Promise<OpenedDb<DB>> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import('pg');
    // BIGINT as number: every counter here stays far below 2^53.
    pg.types.setTypeParser(20, (v: string) => Number(v));
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }),
    });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (url !== ':memory:') mkdirSync(dirname(url), { recursive: true });
  const database = new SQLite(url);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  if (cacheStatements) cachePreparedStatements(database);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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

/** Runs, in order and once each, the migrations a database has not seen yet. */
export async function migrate<DB>(
  db: Kysely<DB>,
  migrations: readonly Migration[],
): Promise<string[]> {
  const names = new Set<string>();
  for (const m of migrations) {
    if (names.has(m.name)) throw new Error(`duplicate migration name ${m.name}`);
    names.add(m.name);
  }
  await sql`create table if not exists _migrations (name varchar(200) primary key, applied_at varchar(40) not null)`.execute(
    db,
  );
  const applied = new Set(
    (await sql<{ name: string }>`select name from _migrations`.execute(db)).rows.map((r) => r.name),
  );
  const ran: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.name)) continue;
    await db.transaction().execute(async (trx) => {
      await m.up(trx);
      await sql`insert into _migrations (name, applied_at) values (${m.name}, ${new Date().toISOString()})`.execute(
        trx,
      );
    });
    ran.push(m.name);
  }
  return ran;
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
