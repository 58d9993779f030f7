import { sql } from 'kysely';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inOneTransaction, openDb, type OpenedDb } from '../../../server/lib/db';

interface Db {
  t: { id: number; v: string };
}

let opened: OpenedDb<Db> | null = null;

async function fresh(): Promise<OpenedDb<Db>> {
  opened = await openDb<Db>({ url: ':memory:' });
  await opened.db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('v', 'text', (c) => c.notNull())
    .execute();
  return opened;
}

afterEach(async () => {
  await opened?.close();
  opened = null;
});

const values = async (o: OpenedDb<Db>) =>
  (await o.db.selectFrom('t').select('v').orderBy('id').execute()).map((r) => r.v);

describe('inOneTransaction', () => {
  it('commits what the flow wrote through the plain db, nested transactions included', async () => {
    const o = await fresh();
    const out = await inOneTransaction(o.db, async () => {
      await o.db.insertInto('t').values({ id: 1, v: 'a' }).execute();
      await o.db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: 2, v: 'b' }).execute();
      });
      return values(o);
    });
    expect(out).toEqual(['a', 'b']);
    expect(await values(o)).toEqual(['a', 'b']);
  });

  it('rolls back everything when the flow throws', async () => {
    const o = await fresh();
    await expect(
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 1, v: 'a' }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await values(o)).toEqual([]);
  });

  it('undoes only a nested transaction that threw (a savepoint)', async () => {
    const o = await fresh();
    await inOneTransaction(o.db, async () => {
      await o.db.insertInto('t').values({ id: 1, v: 'kept' }).execute();
      await expect(
        o.db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ id: 2, v: 'undone' }).execute();
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await o.db.insertInto('t').values({ id: 3, v: 'after' }).execute();
    });
    expect(await values(o)).toEqual(['kept', 'after']);
  });

  it('makes other flows wait for the commit and never see uncommitted rows', async () => {
    const o = await fresh();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const wrote = new Promise<void>((r) => (inserted = r));
    const scoped = inOneTransaction(o.db, async () => {
      await o.db.insertInto('t').values({ id: 1, v: 'a' }).execute();
      inserted();
      await gate;
    });
    await wrote;
    const seen: string[][] = [];
    const other = values(o).then((v) => seen.push(v));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    release();
    await Promise.all([scoped, other]);
    expect(seen).toEqual([['a']]);
  });
});

describe('inOneTransaction group commit', () => {
  it('flows started together share a commit, but a throw undoes only its own flow', async () => {
    const o = await fresh();
    const results = await Promise.allSettled([
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 1, v: 'first' }).execute();
      }),
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 2, v: 'thrown' }).execute();
        throw new Error('second fails');
      }),
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 3, v: 'third' }).execute();
        return 'ok';
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<string>).value).toBe('ok');
    expect(await values(o)).toEqual(['first', 'third']);
  });

  it('a flow on a closed database fails instead of waiting forever', async () => {
    const o = await fresh();
    await o.close();
    opened = null;
    await expect(
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 1, v: 'x' }).execute();
      }),
    ).rejects.toThrow();
  });

  it('each flow of a group runs in its own caller’s async context', async () => {
    const o = await fresh();
    const requestId = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const flow = (id: string) =>
      requestId.run(id, () =>
        inOneTransaction(o.db, async () => {
          await o.db
            .insertInto('t')
            .values({ id: seen.length + 1, v: id })
            .execute();
          seen.push(requestId.getStore());
        }),
      );
    await Promise.all([flow('a'), flow('b'), flow('c')]);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(await values(o)).toEqual(['a', 'b', 'c']);
  });

  it('the first flow of a group throwing undoes its rows only; the next ones commit', async () => {
    const o = await fresh();
    const results = await Promise.allSettled([
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 1, v: 'thrown' }).execute();
        throw new Error('first fails');
      }),
      inOneTransaction(o.db, async () => {
        await o.db.insertInto('t').values({ id: 2, v: 'second' }).execute();
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(await values(o)).toEqual(['second']);
  });

  it('a flow resolves only once its rows are committed (another connection sees them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-group-'));
    try {
      const url = join(dir, 'g.sqlite');
      opened = await openDb<Db>({ url });
      await opened.db.schema
        .createTable('t')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('v', 'text', (c) => c.notNull())
        .execute();
      const reader = await openDb<Db>({ url });
      try {
        const o = opened;
        const seenAtResolve: string[][] = [];
        await Promise.all(
          [1, 2, 3].map((id) =>
            inOneTransaction(o.db, async () => {
              await o.db
                .insertInto('t')
                .values({ id, v: `r${id}` })
                .execute();
            }).then(async () => {
              seenAtResolve.push(await values(reader));
            }),
          ),
        );
        for (const seen of seenAtResolve) expect(seen).toEqual(['r1', 'r2', 'r3']);
      } finally {
        await reader.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('openDb durability', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function roundTrip(durability: 'full' | 'normal' | 'process') {
    const dir = mkdtempSync(join(tmpdir(), 'db-durability-'));
    dirs.push(dir);
    const url = join(dir, 'x.sqlite');
    const first = await openDb<Db>({ url, durability });
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(first.db);
    await first.db.schema
      .createTable('t')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('v', 'text', (c) => c.notNull())
      .execute();
    await first.db.insertInto('t').values({ id: 1, v: 'kept' }).execute();
    await first.close();
    opened = await openDb<Db>({ url, durability });
    return { synchronous: rows[0]!.synchronous, values: await values(opened) };
  }

  it('full (the BFF’s default for merchants’ data) keeps every commit; it syncs them itself', async () => {
    // The connection runs NORMAL; db-sync.test.ts shows each commit waiting for its fsync.
    expect(await roundTrip('full')).toEqual({ synchronous: 1, values: ['kept'] });
  });

  it('normal syncs at checkpoints', async () => {
    expect(await roundTrip('normal')).toEqual({ synchronous: 1, values: ['kept'] });
  });

  it('process (the sandbox) skips fsync, and a commit still survives a restart', async () => {
    expect(await roundTrip('process')).toEqual({ synchronous: 0, values: ['kept'] });
  });
});

describe('a SQLite store on disk', () => {
  it('is readable by its owner only: the directory it makes, the file, its WAL', async () => {
    const root = mkdtempSync(join(tmpdir(), 'db-mode-'));
    const file = join(root, 'store', 'bff.sqlite');
    const o = await openDb<Db>({ url: file });
    try {
      await o.db.schema.createTable('t').addColumn('id', 'integer').execute();
      await sql`insert into t (id) values (1)`.execute(o.db);
      const mode = (p: string) => statSync(p).mode & 0o777;
      expect(mode(join(root, 'store'))).toBe(0o700);
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
    } finally {
      await o.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
