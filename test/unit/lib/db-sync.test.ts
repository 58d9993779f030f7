import { sql, type Kysely } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type OpenedDb } from '../../../server/lib/db';
import { withoutWaitingForDisk } from '../../../server/lib/db-sync';

interface Db {
  t: { id: number; v: string };
}

const opened: OpenedDb<Db>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function store(durability: 'full' | 'normal'): Promise<Kysely<Db>> {
  const dir = mkdtempSync(join(tmpdir(), 'db-sync-'));
  dirs.push(dir);
  const o = await openDb<Db>({ url: join(dir, 'x.sqlite'), durability });
  opened.push(o);
  await o.db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('v', 'text', (c) => c.notNull())
    .execute();
  return o.db;
}

const synchronous = async (db: Kysely<Db>) =>
  (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;

describe('withoutWaitingForDisk', () => {
  it('writes without fsync inside, and every other use of the store waits and syncs', async () => {
    const db = await store('full');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const light = withoutWaitingForDisk(db, async (conn) => {
      await conn.insertInto('t').values({ id: 1, v: 'window' }).execute();
      const inside = await synchronous(conn);
      await held;
      order.push('light done');
      return inside;
    });
    // A money write started meanwhile: it must not commit while fsync is off.
    const money = db.transaction().execute(async (trx) => {
      order.push('money began');
      await trx.insertInto('t').values({ id: 2, v: 'charge' }).execute();
      return synchronous(trx);
    });
    await new Promise((r) => setTimeout(r, 30));
    release();
    expect(await light).toBe(1);
    expect(await money).toBe(2);
    expect(order).toEqual(['light done', 'money began']);
    expect(await synchronous(db)).toBe(2);
    expect((await db.selectFrom('t').select('v').orderBy('id').execute()).map((r) => r.v)).toEqual([
      'window',
      'charge',
    ]);
  });

  it('turns fsync back on when the work throws', async () => {
    const db = await store('full');
    await expect(
      withoutWaitingForDisk(db, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await synchronous(db)).toBe(2);
  });

  it('leaves other stores and transactions as they are', async () => {
    const normal = await store('normal');
    expect(await withoutWaitingForDisk(normal, (conn) => synchronous(conn))).toBe(1);
    const full = await store('full');
    const inTx = await full
      .transaction()
      .execute((trx) => withoutWaitingForDisk(trx, (conn) => synchronous(conn)));
    expect(inTx).toBe(2);
  });
});
