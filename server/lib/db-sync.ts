import type SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const fdatasyncAsync = promisify(fdatasync);

/** How a durable store makes its WAL durable (a test may count or delay it). */
export type SyncFile = (fd: number) => Promise<void>;

/** The same on the event loop, for a commit nothing else waits behind (`alone`). */
export type SyncFileNow = (fd: number) => void;

export interface DurableOptions {
  syncFile?: SyncFile;
  syncFileNow?: SyncFileNow;
  /**
   * Whether this process has nothing else to do now (a lone request, an idle event loop). Then
   * a commit's fsync runs on the event loop rather than on the thread pool (no hand-off there
   * and back: the latency of a lone request), and an `answerBeforeDisk` commit answers before
   * its fsync. Under load neither: answers that come sooner make more commits land while an
   * fsync runs, measured at 5–10 % fewer pays a second at concurrency 32, where one fsync's
   * wait is lost in the queueing anyway. Without it: fsyncs on the thread pool, and
   * `answerBeforeDisk` never waits.
   */
  alone?: () => boolean;
  /**
   * Told when an fsync nobody waits for (`answerBeforeDisk`) fails: the disk refused to keep
   * commits already answered. Every later sync fails too (`DurableCommits.failure`).
   */
  onSyncError?: (err: Error) => void;
}

interface Held {
  /** A statement that writes ran while the connection was held. */
  wrote: boolean;
  /** The holder asked for its writes not to wait for the disk (`withoutWaitingForDisk`). */
  light: boolean;
  /** The holder's writes start their fsync but do not wait for it (`answerBeforeDisk`). */
  behind: boolean;
}

/** Whether `sql` only reads (a text SQLite cannot compile: no, and its run will say why). */
function readOnly(database: SQLite.Database, sql: string): boolean {
  try {
    return database.prepare(sql).readonly;
  } catch {
    return false;
  }
}

/**
 * Sent by `withoutWaitingForDisk` on the held connection: a watched connection takes it as the
 * mark and runs nothing; inside an `inOneTransaction` flow (whose group syncs once, at its
 * commit) it reaches SQLite and does nothing.
 */
const NO_FSYNC = CompiledQuery.raw('select 1 -- card-checkout: these writes need no fsync');

/** Sent by `answerBeforeDisk` inside a transaction: its commit's fsync starts, unwaited. */
const SYNC_BEHIND = CompiledQuery.raw('select 1 -- card-checkout: answer before the fsync');

/**
 * Every commit of a SQLite store on disk before it returns, with the fsyncs off the event
 * loop and shared: the connection runs `synchronous = NORMAL` (a commit writes the WAL, no
 * fsync), and whoever wrote waits, once the connection is released to the next user, for an
 * `fdatasync` of the WAL on the thread pool that started after its commit. Commits that land
 * while one runs share the next. `synchronous = FULL` gives the same guarantee with one fsync
 * per commit, inside the commit, with the event loop blocked (≈ 190 µs here, four per pay).
 * The WAL is written in order, so syncing it makes every commit before durable too. A commit
 * nothing else waits behind (`alone`: a lone request) syncs on the event loop: the
 * hand-off to the thread pool and back cost more than the fsync itself there.
 */
export class DurableCommits {
  private fd: number | null = null;
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private readonly held = new WeakMap<DatabaseConnection, Held>();
  private readonly watched = new WeakMap<DatabaseConnection, DatabaseConnection>();
  /** Commits a read may have seen (this process's that wait for the disk, other processes'). */
  private commits = 0;
  /** How many of those a finished fsync covers. */
  private covered = 0;
  /** `data_version` when last looked at: it moves when another process commits to the file. */
  private version: number;

  /** The fsyncs run so far: on the event loop, on the thread pool. */
  readonly fsyncs = { inline: 0, pooled: 0 };
  private readonly syncFile: SyncFile;
  private readonly syncFileNow: SyncFileNow;
  private readonly alone: (() => boolean) | undefined;
  private readonly onSyncError: (err: Error) => void;
  private failedWith: Error | null = null;

  constructor(
    private readonly database: SQLite.Database,
    private readonly file: string,
    opts: DurableOptions = {},
  ) {
    this.version = this.dataVersion();
    this.syncFile = opts.syncFile ?? fdatasyncAsync;
    this.syncFileNow = opts.syncFileNow ?? fdatasyncSync;
    this.alone = opts.alone;
    this.onSyncError = opts.onSyncError ?? (() => {});
  }

  /** `connection`, noting whether what runs on it writes. */
  watch(connection: DatabaseConnection): DatabaseConnection {
    let w = this.watched.get(connection);
    if (w) return w;
    const state: Held = { wrote: false, light: false, behind: false };
    const database = this.database;
    w = {
      executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
        if (q === NO_FSYNC) {
          state.light = true;
          return Promise.resolve({ rows: [] });
        }
        if (q === SYNC_BEHIND) {
          state.behind = true;
          return Promise.resolve({ rows: [] });
        }
        // BEGIN and COMMIT count as read-only: the statements inside are what writes.
        if (!state.wrote && !readOnly(database, q.sql)) state.wrote = true;
        return connection.executeQuery<R>(q);
      },
      streamQuery: (q, chunkSize) => connection.streamQuery(q, chunkSize),
    };
    this.held.set(w, state);
    this.watched.set(connection, w);
    return w;
  }

  /**
   * Whether the holder of `connection` wrote and must wait for the disk, and a clean slate for
   * the next holder: called while the connection is still held (the next holder's writes must
   * not be taken for this one's), the wait (`sync`) once it is released.
   */
  take(connection: DatabaseConnection): boolean {
    const state = this.held.get(connection);
    if (!state) return false;
    const wait = state.wrote && !state.light;
    const behind = state.behind;
    state.wrote = false;
    state.light = false;
    state.behind = false;
    if (!wait) return false;
    this.committed();
    if (!behind || this.alone?.() === false) return true;
    // Started now on the thread pool, waited for by nobody: a read that saw these writes
    // still waits for it (`settled`); one that failed is reported, not thrown at anyone.
    this.sync(false).catch((err: unknown) => this.onSyncError(err as Error));
    return false;
  }

  /** Counts a commit that waits for the disk: a read that saw it owes an fsync that covers it. */
  committed(): void {
    this.commits++;
  }

  /**
   * Resolves once every commit a read so far may have seen is on disk: at once when no fsync
   * is owed, else after one that began now. Readers see a commit before its fsync (its writer
   * waits, they do not), so whoever answers someone from a read waits for this first: what the
   * store told nobody can vanish in a power cut, what it told someone cannot. Another
   * process's commits to the same file count too.
   */
  settled(): Promise<void> {
    const version = this.dataVersion();
    if (version !== this.version) {
      this.version = version;
      this.commits++;
    }
    return this.covered >= this.commits ? Promise.resolve() : this.sync();
  }

  /**
   * Resolves once an fsync of the WAL that started after this call has finished: on the event
   * loop when `inline` and `alone` says nothing else waits (and none is running).
   */
  sync(inline = true): Promise<void> {
    if (this.failedWith) return Promise.reject(this.failedWith);
    if (!this.running) return inline && this.alone?.() ? this.syncNow() : this.start();
    // The one running may have started before the caller's commit: the next one covers it.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.failedWith ? Promise.reject(this.failedWith) : this.start();
      });
    return this.next;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private dataVersion(): number {
    return this.database.pragma('data_version', { simple: true }) as number;
  }

  private syncNow(): Promise<void> {
    const upTo = this.commits;
    try {
      this.fsyncs.inline++;
      this.syncFileNow(this.walFd());
    } catch (err) {
      return Promise.reject(this.failed(err));
    }
    if (upTo > this.covered) this.covered = upTo;
    return Promise.resolve();
  }

  /**
   * The store's disk failed an fsync: after that, Linux may have dropped the pages it could
   * not write and a later fsync of the same file succeeds without them (PostgreSQL panics on
   * it since 2018, "fsyncgate"). Nothing written since can be called durable: every later sync
   * fails with the same error until the BFF restarts and reads back what the disk kept.
   */
  get failure(): Error | null {
    return this.failedWith;
  }

  private failed(err: unknown): Error {
    this.failedWith ??= err as Error;
    return err as Error;
  }

  /** The WAL, opened once; its name in its folder made durable then too (once, inline). */
  private walFd(): number {
    if (this.fd !== null) return this.fd;
    const fd = openSync(`${this.file}-wal`, 'r');
    const dir = openSync(dirname(this.file), 'r');
    try {
      fsyncSync(dir);
    } catch (err) {
      closeSync(fd);
      throw err;
    } finally {
      closeSync(dir);
    }
    return (this.fd = fd);
  }

  private start(): Promise<void> {
    // The WAL is written in order: an fsync covers every commit made before it began.
    const upTo = this.commits;
    const p = this.flush()
      .then(
        () => {
          if (upTo > this.covered) this.covered = upTo;
        },
        (err: unknown) => {
          throw this.failed(err);
        },
      )
      .finally(() => {
        if (this.running === p) this.running = null;
      });
    this.running = p;
    return p;
  }

  private async flush(): Promise<void> {
    const fd = this.walFd();
    this.fsyncs.pooled++;
    await this.syncFile(fd);
  }
}

/** The durable-commit keeper of each store opened with `durability: 'full'`. */
export const durableStores = new WeakMap<object, DurableCommits>();

/**
 * Resolves once what a read of `db` may have seen is on disk (`DurableCommits.settled`): for
 * an answer made of reads alone. At once on any other store: PostgreSQL shows a commit only
 * once it is durable, and a SQLite store opened `normal` made no such promise.
 */
export function readsSettled(db: object): Promise<void> {
  return durableStores.get(db)?.settled() ?? Promise.resolve();
}

/**
 * Called first inside a transaction that `root` (a store's own handle) began: its commit starts
 * the WAL fsync that makes it durable but returns without waiting for it. For the outcome of a
 * gateway call, whose truth the gateway keeps: the write-ahead before the call (the claim with
 * its attempt) is on disk before the call is made, so a power cut that takes back an outcome
 * leaves an attempt in flight, which the resolver settles from the gateway's ledger as it would
 * after a crash: the truth comes later, it does not change. A read that saw the outcome (a GET,
 * a replayed answer, an event's delivery claim) still waits for the fsync, as every read does.
 * The shopper's answer no longer waits for a second fsync (the claim's is the first) while
 * the process is `alone`; otherwise the commit waits as any other.
 *
 * Any other store (PostgreSQL, which shows a commit once durable; SQLite `normal`): nothing.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function answerBeforeDisk(root: object, tx: Kysely<any>): Promise<void> {
  if (durableStores.has(root)) await tx.executeQuery(SYNC_BEHIND);
}

/**
 * Runs `fn` with `db`'s own connection held, its writes not waiting for the disk: for writes
 * whose loss to an OS crash or power cut costs nothing, because nothing depends on them (a
 * rate-limit window) or because the durable commit that acts on them makes them durable too
 * (an idempotency claim before the claim of a payment: the WAL is written in order and synced
 * whole). Every other write of the store waits for its fsync.
 *
 * Any other store (PostgreSQL, SQLite opened `normal` or `process`), or `db` inside a
 * transaction (its commit decides): `fn(db)` as is.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function withoutWaitingForDisk<D extends Kysely<any>, T>(
  db: D,
  fn: (db: D) => Promise<T>,
): Promise<T> {
  if (db.isTransaction || !durableStores.has(db)) return fn(db);
  return db.connection().execute(async (conn) => {
    await conn.executeQuery(NO_FSYNC);
    return fn(conn as D);
  });
}
