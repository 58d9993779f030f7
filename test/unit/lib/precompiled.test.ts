import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type OpenedDb } from '../../../server/lib/db';
import {
  changesOf,
  everyColumn,
  perShape,
  precompiled,
  precompiledTexts,
  rowsOf,
} from '../../../server/lib/precompiled';

interface Db {
  items: { id: string; name: string | null; qty: number; kind: string };
}

let opened: OpenedDb<Db>;

beforeEach(async () => {
  opened = await openDb<Db>({ url: ':memory:' });
  await sql`create table items (id text primary key, name text, qty integer not null, kind text not null)`.execute(
    opened.db,
  );
});

afterEach(async () => {
  await opened.close();
});

const COLUMNS = { id: true, name: true, qty: true, kind: true } as const;

const insertQ = precompiled((db: Kysely<Db>, p: Db['items']) =>
  db.insertInto('items').values(everyColumn(p, COLUMNS)),
);

const byKindQ = precompiled((db: Kysely<Db>, p: { kind: string; min: number }) =>
  db
    .selectFrom('items')
    .selectAll()
    .where('kind', '=', p.kind)
    .where('qty', '>=', p.min)
    // A constant written in the builder stays a constant.
    .where('id', '!=', 'never')
    .orderBy('id'),
);

describe('precompiled', () => {
  it('binds each call its own parameters by name, constants kept', async () => {
    const { db } = opened;
    await db.executeQuery(insertQ(db, { id: 'a', name: 'A', qty: 1, kind: 'x' }));
    await db.executeQuery(insertQ(db, { id: 'b', name: null, qty: 5, kind: 'x' }));
    await db.executeQuery(insertQ(db, { id: 'never', name: 'N', qty: 9, kind: 'x' }));
    await db.executeQuery(insertQ(db, { id: 'c', name: 'C', qty: 7, kind: 'y' }));
    expect((await rowsOf(db, byKindQ(db, { kind: 'x', min: 2 }))).map((r) => r.id)).toEqual(['b']);
    expect((await rowsOf(db, byKindQ(db, { kind: 'x', min: 0 }))).map((r) => r.id)).toEqual([
      'a',
      'b',
    ]);
    expect(await rowsOf(db, byKindQ(db, { kind: 'y', min: 0 }))).toEqual([
      { id: 'c', name: 'C', qty: 7, kind: 'y' },
    ]);
  });

  it('compiles once: the second call reuses the text and the operation node', () => {
    const { db } = opened;
    const a = byKindQ(db, { kind: 'x', min: 1 });
    const b = byKindQ(db, { kind: 'y', min: 2 });
    expect(b.sql).toBe(a.sql);
    expect(b.query).toBe(a.query);
    expect(a.parameters).toEqual(['x', 1, 'never']);
    expect(b.parameters).toEqual(['y', 2, 'never']);
    expect(precompiledTexts.has(a.sql)).toBe(true);
  });

  it('binds NULL for an undefined parameter', async () => {
    const { db } = opened;
    const q = insertQ(db, { id: 'u', name: undefined as unknown as null, qty: 1, kind: 'x' });
    expect(q.parameters).toEqual(['u', null, 1, 'x']);
    await db.executeQuery(q);
    expect((await rowsOf(db, byKindQ(db, { kind: 'x', min: 0 })))[0]!.name).toBeNull();
  });

  it('runs inside a transaction, which rolls it back with the rest', async () => {
    const { db } = opened;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(insertQ(trx, { id: 't', name: 'T', qty: 1, kind: 'z' }));
        expect(await rowsOf(trx, byKindQ(trx, { kind: 'z', min: 0 }))).toHaveLength(1);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await rowsOf(db, byKindQ(db, { kind: 'z', min: 0 }))).toHaveLength(0);
  });

  it('counts the rows an update changed', async () => {
    const { db } = opened;
    const bump = precompiled((d: Kysely<Db>, p: { kind: string }) =>
      d
        .updateTable('items')
        .set((eb) => ({ qty: eb('qty', '+', 1) }))
        .where('kind', '=', p.kind),
    );
    await db.executeQuery(insertQ(db, { id: 'a', name: 'A', qty: 1, kind: 'x' }));
    await db.executeQuery(insertQ(db, { id: 'b', name: 'B', qty: 1, kind: 'x' }));
    expect(await changesOf(db, bump(db, { kind: 'x' }))).toBe(2);
    expect(await changesOf(db, bump(db, { kind: 'nothing' }))).toBe(0);
  });

  it('compiles once per dialect: PostgreSQL gets its own text', () => {
    const pg = new Kysely<Db>({
      dialect: new PostgresDialect({ pool: {} as never }),
    });
    const lite = byKindQ(opened.db, { kind: 'x', min: 1 });
    const postgres = byKindQ(pg, { kind: 'x', min: 1 });
    expect(lite.sql).toContain('?');
    expect(postgres.sql).toContain('$1');
    expect(postgres.parameters).toEqual(['x', 1, 'never']);
  });
});

describe('perShape', () => {
  it('makes one query per shape and keeps at most `max`', () => {
    const made: string[] = [];
    const of = perShape((shape) => {
      made.push(shape);
      return { shape };
    }, 2);
    expect(of('a')).toBe(of('a'));
    of('b');
    of('c');
    of('c');
    expect(made).toEqual(['a', 'b', 'c', 'c']);
  });
});
