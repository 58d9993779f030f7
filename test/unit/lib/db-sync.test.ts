import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inOneTransaction, openDb, type OpenedDb } from '../../../server/lib/db';
import {
  answerBeforeDisk,
  durableStores,
  readsSettled,
  withoutWaitingForDisk,
} from '../../../server/lib/db-sync';

interface Db {
  t: { id: number; v: string };
}

const opened: OpenedDb<Db>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A store whose WAL syncs are counted and held until `release()`: what a durable commit
 * waits for is visible. `log` gets 'sync started' when one begins.
 */
async function store(durability: 'full' | 'normal', log: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
  dirs.push(dir);
  let open: () => void = () => {};
  let gate = Promise.resolve();
  const syncs = { n: 0 };
  const file = join(dir, 'x.sqlite');
  const o = await openDb<Db>({
    url: file,
    durability,
    durable: {
      syncFile: async () => {
        syncs.n++;
        log.push('sync started');
        await gate;
      },
    },
  });
  opened.push(o);
  await o.db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('v', 'text', (c) => c.notNull())
    .execute();
  return {
    db: o.db,
    file,
    syncs,
    hold() {
      gate = new Promise<void>((r) => (open = r));
    },
    release: () => open(),
  };
}

const insert = (db: Kysely<Db>, id: number) =>
  db
    .insertInto('t')
    .values({ id, v: `v${id}` })
    .execute();
const tick = () => new Promise((r) => setTimeout(r, 20));

describe('durable commits (SQLite `full`)', () => {
  it('a write returns only once a WAL sync that began after it ends; a read waits for none', async () => {
    const log: string[] = [];
    const s = await store('full', log);
    const before = s.syncs.n;
    s.hold();
    const write = insert(s.db, 1).then(() => log.push('write returned'));
    await tick();
    expect(log.at(-1)).toBe('sync started');
    expect(log).not.toContain('write returned');
    // The connection is free meanwhile: others read (and write) while the disk works.
    expect(await s.db.selectFrom('t').select('v').execute()).toEqual([{ v: 'v1' }]);
    s.release();
    await write;
    expect(log.at(-1)).toBe('write returned');
    const afterWrite = s.syncs.n;
    expect(afterWrite).toBeGreaterThan(before);
    await s.db.selectFrom('t').selectAll().execute();
    expect(s.syncs.n).toBe(afterWrite);
    expect(
      (await sql<{ synchronous: number }>`pragma synchronous`.execute(s.db)).rows[0]!.synchronous,
    ).toBe(1);
  });

  it('writes that land while a sync runs share the next one', async () => {
    const s = await store('full');
    s.hold();
    const first = insert(s.db, 1);
    await tick();
    const started = s.syncs.n;
    const rest = Array.from({ length: 20 }, (_, i) => insert(s.db, i + 2));
    await tick();
    expect(s.syncs.n).toBe(started);
    s.release();
    await Promise.all([first, ...rest]);
    // The one running, then one more for the twenty that came while it ran.
    expect(s.syncs.n).toBe(started + 1);
    expect(
      await s.db
        .selectFrom('t')
        .select((eb) => eb.fn.countAll().as('n'))
        .execute(),
    ).toEqual([{ n: 21 }]);
  });

  it('a transaction waits once, at its end; a group of flows resolves after its sync', async () => {
    const s = await store('full');
    const base = s.syncs.n;
    await s.db.transaction().execute(async (trx) => {
      await insert(trx, 1);
      await insert(trx, 2);
    });
    expect(s.syncs.n).toBe(base + 1);
    s.hold();
    const order: string[] = [];
    const flows = [3, 4].map((id) =>
      inOneTransaction(s.db, () => insert(s.db, id)).then(() => order.push(`flow ${id}`)),
    );
    await tick();
    expect(order).toEqual([]);
    s.release();
    await Promise.all(flows);
    expect(order.sort()).toEqual(['flow 3', 'flow 4']);
  });

  it('writes through withoutWaitingForDisk do not wait; a failed sync fails the write', async () => {
    const s = await store('full');
    const base = s.syncs.n;
    await withoutWaitingForDisk(s.db, (conn) => insert(conn, 1));
    expect(s.syncs.n).toBe(base);
    await insert(s.db, 2);
    expect(s.syncs.n).toBe(base + 1);

    const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
    dirs.push(dir);
    const failing = await openDb<Db>({
      url: join(dir, 'y.sqlite'),
      durability: 'full',
      durable: {
        syncFile: () => Promise.reject(new Error('EIO: the disk said no')),
      },
    });
    opened.push(failing);
    await expect(
      failing.db.schema.createTable('u').addColumn('id', 'integer').execute(),
    ).rejects.toThrow('EIO');
  });

  it('a write queued behind a hold that needs no fsync still waits for its own', async () => {
    const s = await store('full');
    const base = s.syncs.n;
    s.hold();
    const light = withoutWaitingForDisk(s.db, (conn) => insert(conn, 1));
    let done = false;
    const heavy = insert(s.db, 2).then(() => (done = true));
    await light;
    await tick();
    expect(done).toBe(false);
    s.release();
    await heavy;
    expect(s.syncs.n).toBe(base + 1);
  });

  it('withoutWaitingForDisk inside a grouped flow joins the group, synced at its commit', async () => {
    const s = await store('full');
    const base = s.syncs.n;
    await inOneTransaction(s.db, () => withoutWaitingForDisk(s.db, (conn) => insert(conn, 1)));
    expect(s.syncs.n).toBe(base + 1);
    expect(await s.db.selectFrom('t').select('v').execute()).toEqual([{ v: 'v1' }]);
  });

  it('a read settles once what it could see is on disk: a held commit, another process', async () => {
    const s = await store('full');
    await insert(s.db, 1);
    const base = s.syncs.n;
    // Everything committed is synced: nothing owed, no fsync.
    await readsSettled(s.db);
    expect(s.syncs.n).toBe(base);

    // With the fsync held while `write` commits, a read started then settles only after it.
    const readWaitsFor = async (write: () => Promise<unknown>) => {
      s.hold();
      const written = write();
      await tick();
      let settled = false;
      const read = readsSettled(s.db).then(() => (settled = true));
      await tick();
      expect(settled).toBe(false);
      s.release();
      await Promise.all([written, read]);
      expect(settled).toBe(true);
    };
    await readWaitsFor(() => insert(s.db, 2));
    // A grouped flow's commit is owed the same way until its group's sync ends.
    await readWaitsFor(() => inOneTransaction(s.db, () => insert(s.db, 4)));

    // Another process commits to the same file: its commit is owed too, once.
    const other = new SQLite(s.file);
    other.prepare('insert into t (id, v) values (3, ?)').run('v3');
    other.close();
    const before = s.syncs.n;
    await readsSettled(s.db);
    expect(s.syncs.n).toBe(before + 1);
    await readsSettled(s.db);
    expect(s.syncs.n).toBe(before + 1);
  });

  it('answerBeforeDisk: the commit starts its sync unwaited; reads still wait; a failure is reported and ends durability', async () => {
    const s = await store('full');
    const base = s.syncs.n;
    s.hold();
    await s.db.transaction().execute(async (tx) => {
      await answerBeforeDisk(s.db, tx);
      await insert(tx, 1);
    });
    // Returned with its fsync started and still held.
    expect(s.syncs.n).toBe(base + 1);
    let settled = false;
    const read = readsSettled(s.db).then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    s.release();
    await read;

    // A sync that failed is reported, and nothing is durable after it (a later fsync of the
    // file may succeed without the pages the failed one dropped): every later sync fails.
    const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
    dirs.push(dir);
    let fail = true;
    let syncs = 0;
    const reported: string[] = [];
    const flaky = await openDb<Db>({
      url: join(dir, 'z.sqlite'),
      durability: 'full',
      durable: {
        onSyncError: (err) => void reported.push(err.message),
        syncFile: () => {
          syncs++;
          return fail ? Promise.reject(new Error('EIO: the disk said no')) : Promise.resolve();
        },
      },
    });
    opened.push(flaky);
    fail = false;
    await flaky.db.schema.createTable('t').addColumn('id', 'integer').execute();
    fail = true;
    await flaky.db.transaction().execute(async (tx) => {
      await answerBeforeDisk(flaky.db, tx);
      await sql`insert into t (id) values (1)`.execute(tx);
    });
    await tick();
    // Nobody waited for it: reported.
    expect(reported).toEqual(['EIO: the disk said no']);
    const before = syncs;
    fail = false;
    await expect(readsSettled(flaky.db)).rejects.toThrow('EIO');
    await expect(sql`insert into t (id) values (2)`.execute(flaky.db)).rejects.toThrow('EIO');
    expect(syncs).toBe(before);
    expect(durableStores.get(flaky.db)?.failure?.message).toBe('EIO: the disk said no');
    // Not a store that syncs itself: nothing is sent.
    const plain = await store('normal');
    await plain.db.transaction().execute(async (tx) => {
      await answerBeforeDisk(plain.db, tx);
      await insert(tx, 1);
    });
    expect(plain.syncs.n).toBe(0);
  });

  it('answerBeforeDisk waits like any commit while not alone (a busy BFF)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
    dirs.push(dir);
    let behind = false;
    let open = () => {};
    let gate = Promise.resolve();
    const o = await openDb<Db>({
      url: join(dir, 'b.sqlite'),
      durability: 'full',
      durable: {
        syncFile: () => gate,
        alone: () => behind,
      },
    });
    opened.push(o);
    await o.db.schema.createTable('t').addColumn('id', 'integer').addColumn('v', 'text').execute();
    const outcome = async (id: number) => {
      let done = false;
      const run = o.db
        .transaction()
        .execute(async (tx) => {
          await answerBeforeDisk(o.db, tx);
          await insert(tx, id);
        })
        .then(() => (done = true));
      await tick();
      return { run, done: () => done };
    };
    gate = new Promise<void>((r) => (open = r));
    const busy = await outcome(1);
    expect(busy.done()).toBe(false);
    open();
    await busy.run;
    behind = true;
    gate = new Promise<void>((r) => (open = r));
    const alone = await outcome(2);
    expect(alone.done()).toBe(true);
    open();
  });

  it('syncs on the event loop when alone, never for answerBeforeDisk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
    dirs.push(dir);
    const log: string[] = [];
    let alone = true;
    let gate = Promise.resolve();
    const o = await openDb<Db>({
      url: join(dir, 'w.sqlite'),
      durability: 'full',
      durable: {
        syncFile: async () => {
          log.push('pooled');
          await gate;
        },
        syncFileNow: () => void log.push('inline'),
        alone: () => alone,
      },
    });
    opened.push(o);
    await o.db.schema.createTable('t').addColumn('id', 'integer').addColumn('v', 'text').execute();
    log.length = 0;
    await insert(o.db, 1);
    expect(log).toEqual(['inline']);
    // Not alone: the thread pool.
    alone = false;
    await insert(o.db, 2);
    expect(log).toEqual(['inline', 'pooled']);
    // An outcome's fsync is never inline, and while one runs the next waits behind it.
    alone = true;
    let open = () => {};
    gate = new Promise<void>((r) => (open = r));
    await o.db.transaction().execute(async (tx) => {
      await answerBeforeDisk(o.db, tx);
      await insert(tx, 3);
    });
    expect(log).toEqual(['inline', 'pooled', 'pooled']);
    const queued = insert(o.db, 4);
    await tick();
    expect(log).toEqual(['inline', 'pooled', 'pooled']);
    open();
    await queued;
    expect(log).toEqual(['inline', 'pooled', 'pooled', 'pooled']);
    // A failed inline fsync fails the write, as a pooled one does.
    const failing = await openDb<Db>({
      url: join(dir, 'v.sqlite'),
      durability: 'full',
      durable: {
        syncFileNow: () => {
          throw new Error('EIO: the disk said no');
        },
        alone: () => true,
      },
    });
    opened.push(failing);
    await expect(
      failing.db.schema.createTable('u').addColumn('id', 'integer').execute(),
    ).rejects.toThrow('EIO');
  });

  it('a normal store syncs nothing of its own', async () => {
    const s = await store('normal');
    await insert(s.db, 1);
    await withoutWaitingForDisk(s.db, (conn) => insert(conn, 2));
    await readsSettled(s.db);
    expect(s.syncs.n).toBe(0);
  });
});
