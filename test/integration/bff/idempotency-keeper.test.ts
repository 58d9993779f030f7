import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import {
  IDEMPOTENCY_STALE_MS,
  runIdempotent,
  type StoredAnswer,
} from '../../../server/bff/idempotency';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { migrate, openDb } from '../../../server/lib/db';

/**
 * A pay's answer is stored under its Idempotency-Key by the transaction that makes it true
 * (the outcome's), not by a commit of its own afterwards: a crash between the two can no longer
 * leave the key "still being processed" for a day while the payment is settled.
 */

let db: Kysely<BffDb>;
let statements: string[];

beforeEach(async () => {
  statements = [];
  db = new Kysely<BffDb>({
    dialect: new SqliteDialect({ database: new SQLite(':memory:') }),
    log: (e) => {
      statements.push(e.query.sql);
    },
  });
  await migrate(db, BFF_MIGRATIONS);
  statements = [];
});

const scope = (key: string) => ({
  sessionId: 'cs_keeper',
  scope: 'pay',
  key,
  body: { method: 'credit' },
  at: new Date('2026-11-25T10:00:00Z'),
});

async function stored(key: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['state', 'response_status', 'response_body'])
    .where('key', '=', key)
    .executeTakeFirst();
}

const answerUpdates = () =>
  statements.filter((s) => s.startsWith('update "idempotency_keys" set "state"')).length;

describe('runIdempotent with an answer kept in the work’s transaction', () => {
  it('stores the kept answer once, in that transaction, and replays it', async () => {
    const answer: StoredAnswer = { status: 200, body: { status: 'succeeded', paymentId: 'p1' } };
    const out = await runIdempotent(db, scope('key-kept-1'), async (keeper) => {
      await db.transaction().execute(async (trx) => {
        await keeper.keep(trx, answer);
      });
      return answer;
    });
    expect(out).toEqual({ kind: 'fresh', answer });
    expect(answerUpdates()).toBe(1);
    expect(await stored('key-kept-1')).toEqual({
      state: 'done',
      response_status: 200,
      response_body: JSON.stringify(answer.body),
    });
    const again = await runIdempotent(db, scope('key-kept-1'), () => {
      throw new Error('must not run twice');
    });
    expect(again).toEqual({ kind: 'replay', answer });
  });

  it('stores the answer returned when it is not the one kept', async () => {
    const kept: StoredAnswer = { status: 200, body: { status: 'pending' } };
    const returned: StoredAnswer = { status: 200, body: { status: 'failed' } };
    await runIdempotent(db, scope('key-kept-2'), async (keeper) => {
      await db.transaction().execute((trx) => keeper.keep(trx, kept));
      return returned;
    });
    expect(answerUpdates()).toBe(2);
    expect((await stored('key-kept-2'))?.response_body).toBe(JSON.stringify(returned.body));
  });

  it('keeps nothing when the transaction rolls back, and releases the key when work throws', async () => {
    const answer: StoredAnswer = { status: 200, body: { status: 'succeeded' } };
    await expect(
      runIdempotent(db, scope('key-kept-3'), async (keeper) => {
        await db.transaction().execute(async (trx) => {
          await keeper.keep(trx, answer);
          throw new Error('outcome failed');
        });
        return answer;
      }),
    ).rejects.toThrow('outcome failed');
    expect(await stored('key-kept-3')).toBeUndefined();
  });

  it('without a keep, stores the answer afterwards as before', async () => {
    const answer: StoredAnswer = { status: 409, body: [{ tag: 'session' }] };
    await runIdempotent(db, scope('key-kept-4'), () => Promise.resolve(answer));
    expect(answerUpdates()).toBe(1);
    expect((await stored('key-kept-4'))?.response_status).toBe(409);
  });
});

describe('a request that outlived its claim', () => {
  const later = (key: string) => ({
    ...scope(key),
    at: new Date(scope(key).at.getTime() + IDEMPOTENCY_STALE_MS + 1000),
  });

  /** Starts a request whose work waits until `finish` is called; resolves once it is claimed. */
  async function held(key: string) {
    let finish: (how: StoredAnswer | Error) => void = () => {};
    const outcome = new Promise<StoredAnswer | Error>((r) => (finish = r));
    let started: () => void = () => {};
    const claimed = new Promise<void>((r) => (started = r));
    const run = runIdempotent(db, scope(key), async (keeper) => {
      started();
      const how = await outcome;
      if (how instanceof Error) throw how;
      await db.transaction().execute((trx) => keeper.keep(trx, how));
      return how;
    });
    await claimed;
    return { run, finish };
  }

  it('does not overwrite the answer of the request that took its key over', async () => {
    const stale = await held('key-stale-1');
    const newer: StoredAnswer = { status: 200, body: { status: 'succeeded', paymentId: 'p2' } };
    const took = await runIdempotent(db, later('key-stale-1'), async (keeper) => {
      await db.transaction().execute((trx) => keeper.keep(trx, newer));
      return newer;
    });
    expect(took).toEqual({ kind: 'fresh', answer: newer });
    stale.finish({ status: 200, body: { status: 'pending' } });
    await stale.run;
    expect((await stored('key-stale-1'))?.response_body).toBe(JSON.stringify(newer.body));
    const replay = await runIdempotent(db, later('key-stale-1'), () => {
      throw new Error('a replay runs no work');
    });
    expect(replay).toEqual({ kind: 'replay', answer: newer });
  });

  it('does not release a key a live request took over', async () => {
    const stale = await held('key-stale-2');
    let release: () => void = () => {};
    const newerRuns = new Promise<void>((r) => (release = r));
    let running: () => void = () => {};
    const newerClaimed = new Promise<void>((r) => (running = r));
    const newer = runIdempotent(db, later('key-stale-2'), async () => {
      running();
      await newerRuns;
      return { status: 200, body: { status: 'succeeded' } };
    });
    await newerClaimed;
    stale.finish(new Error('the stale request failed'));
    await expect(stale.run).rejects.toThrow('the stale request failed');
    // The newer request still holds the key: a third one is told it is being processed.
    const third = await runIdempotent(db, later('key-stale-2'), () => {
      throw new Error('must not run while the newer request runs');
    });
    expect(third).toMatchObject({ kind: 'conflict', status: 409 });
    release();
    await newer;
  });
});

describe('a replay on a durable store', () => {
  it('shows a stored answer only once the commit that stored it is on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idem-durable-'));
    let gate = Promise.resolve();
    let open = () => {};
    const o = await openDb<BffDb>({
      url: join(dir, 'bff.sqlite'),
      durability: 'full',
      durable: { syncFile: () => gate },
    });
    try {
      await migrate(o.db, BFF_MIGRATIONS);
      const answer: StoredAnswer = { status: 200, body: { status: 'succeeded', paymentId: 'p9' } };
      const order: string[] = [];
      gate = new Promise<void>((r) => (open = r));
      // The outcome commits with its answer; its fsync is held.
      const first = runIdempotent(o.db, scope('key-durable-1'), async (keeper) => {
        await o.db.transaction().execute((trx) => keeper.keep(trx, answer));
        return answer;
      }).then((out) => (order.push('first'), out));
      await new Promise((r) => setTimeout(r, 30));
      const replay = runIdempotent(o.db, scope('key-durable-1'), () => {
        throw new Error('a replay runs no work');
      }).then((out) => (order.push('replay'), out));
      await new Promise((r) => setTimeout(r, 50));
      expect(order).toEqual([]);
      open();
      expect(await first).toEqual({ kind: 'fresh', answer });
      expect(await replay).toEqual({ kind: 'replay', answer });
    } finally {
      await o.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
