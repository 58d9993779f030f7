import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  MAINTENANCE_LEASE,
  maintenanceRound,
  startMaintenance,
} from '../../../server/bff/maintenance';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { inboxDb, receivedRow } from '../../../server/bff/webhooks/store';
import { payWithAnotherKey, type TestBff } from '../../support/bff';
import { startBffPair, type BffPair } from '../../support/bff-pair';
import { seedSessionWithAttempt } from '../../support/store-rows';

// Two BFF instances on one store (issue 13 §1): work that must happen once happens once.
const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;
let pair: BffPair;
let store: BffPair['store'];
let a: TestBff;
let b: TestBff;

beforeAll(async () => {
  pair = await startBffPair();
  ({ store, a, b } = pair);
});
afterAll(() => pair.close());

const inbox = () => inboxDb(store.db);

/** A `Canceled` notice for a movement the gateway's ledger does not know (never confirmed). */
const notice = (t: TestBff, movementId: number, newValue = 'Canceled') =>
  t.request('POST', '/webhooks/gateway', {
    body: {
      movementId,
      nsu: String(movementId),
      codAuth: 'ZZ9999',
      installmentNumber: 1,
      moment: '2026-05-01T10:00:00.000-03:00',
      type: 'TransactionStatus',
      oldValue: '',
      newValue,
    },
    headers: { authorization: basic },
  });

/** The processing log lines of a movement, across both instances. */
const processed = (movementId: number, tries: number) =>
  [...a.logs, ...b.logs].filter((line) => {
    const l = JSON.parse(line) as { event?: string; movementId?: number; tries?: number };
    return l.event === 'webhook.unconfirmed' && l.movementId === movementId && l.tries === tries;
  }).length;

describe('the webhook inbox with two instances', () => {
  it('each notification is worked on once, even when both instances run at the same time', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => 9_100_000 + i);
    // Delivered to either instance; neither the NSU nor the code is in the gateway's ledger,
    // so each stays `received` and is tried again later.
    await Promise.all(
      ids.map(async (movementId, i) => {
        const res = await notice(i % 2 ? a : b, movementId);
        expect(res.status).toBe(200);
      }),
    );
    await webhookReceiverOf(a.bff.ctx).idle();
    await webhookReceiverOf(b.bff.ctx).idle();
    for (const id of ids) expect(processed(id, 1), `movement ${id}, first try`).toBe(1);

    // The retries fall due: both instances look at the inbox at the same moment.
    a.clock.advance(3_600_000);
    b.clock.advance(3_600_000);
    await Promise.all([
      webhookReceiverOf(a.bff.ctx).processAll(),
      webhookReceiverOf(b.bff.ctx).processAll(),
    ]);
    for (const id of ids) expect(processed(id, 2), `movement ${id}, second try`).toBe(1);
    const rows = await inbox().selectFrom('webhook_inbox').selectAll().execute();
    expect(rows.filter((r) => ids.includes(Number(r.movement_id))).map((r) => r.tries)).toEqual(
      ids.map(() => 2),
    );
    // Every claim was given back.
    expect(rows.every((r) => r.claimed_by === null)).toBe(true);
  });

  it('a claim left by an instance that died is taken over once it lapses', async () => {
    const movementId = 9_200_000;
    const res = await notice(a, movementId);
    expect(res.status).toBe(200);
    await webhookReceiverOf(a.bff.ctx).idle();
    // Claimed by an instance that is gone (it never gives the claim back), then due again:
    // the claim comes first, so no receiver can take the row in between.
    const now = b.clock.now().getTime() + 3_600_000;
    await inbox()
      .updateTable('webhook_inbox')
      .set({ claimed_by: 'bff_dead', claimed_until: new Date(now + 1_000).toISOString() })
      .where('movement_id', '=', movementId)
      .execute();
    a.clock.advance(3_600_000);
    b.clock.advance(3_600_000);
    await webhookReceiverOf(b.bff.ctx).processAll();
    expect(processed(movementId, 2)).toBe(0);
    a.clock.advance(b.bff.ctx.config.inboxClaimMs);
    b.clock.advance(b.bff.ctx.config.inboxClaimMs);
    await webhookReceiverOf(b.bff.ctx).processAll();
    expect(processed(movementId, 2)).toBe(1);
  });
});

const roundEvery = (t: TestBff, instance: string, intervalMs: number) =>
  maintenanceRound(t.bff.ctx, { accountNumber: '1001', intervalMs, instance });

describe('the maintenance round with two instances', () => {
  const round = (t: TestBff, instance: string) => roundEvery(t, instance, 60_000);

  it('is led by one instance at a time; a lapsed lease passes to the other', async () => {
    const first = await Promise.all([round(a, 'bff_a'), round(b, 'bff_b')]);
    expect(first.filter((r) => r.led)).toHaveLength(1);
    const leader = first[0]!.led ? 'bff_a' : 'bff_b';
    const [lead, other] = leader === 'bff_a' ? [a, b] : [b, a];
    const otherName = leader === 'bff_a' ? 'bff_b' : 'bff_a';
    // The leader renews its lease round after round; the other keeps out.
    expect((await round(lead, leader)).led).toBe(true);
    expect((await round(other, otherName)).led).toBe(false);
    // The leader stops (killed): two intervals later its lease has lapsed.
    a.clock.advance(120_001);
    b.clock.advance(120_001);
    expect((await round(other, otherName)).led).toBe(true);
    expect((await round(lead, leader)).led).toBe(false);
    const row = await store.db
      .selectFrom('bff_leases' as never)
      .selectAll()
      .where('name' as never, '=', MAINTENANCE_LEASE as never)
      .executeTakeFirst();
    expect(row).toMatchObject({ holder: otherName });
  });
});

describe('the maintenance lease', () => {
  const holder = async () =>
    (
      await store.db
        .selectFrom('bff_leases' as never)
        .select('holder' as never)
        .where('name' as never, '=', MAINTENANCE_LEASE as never)
        .executeTakeFirst()
    )?.['holder' as never] as string | undefined;
  /** Both clocks past any lease taken so far. */
  const lapse = () => {
    a.clock.advance(3_600_000);
    b.clock.advance(3_600_000);
  };

  it('is kept by a leader whose round outlasts it', async () => {
    lapse();
    // An unknown payment makes the round search the gateway's ledger; that search is slow.
    const id = 'cs_lease_slow_round';
    const at = new Date(a.clock.now().getTime() - 120_000).toISOString();
    await seedSessionWithAttempt(store.db, id, { created_at: at, updated_at: at });
    await store.db
      .updateTable('checkout_sessions')
      .set({ status: 'pending' })
      .where('id', '=', id)
      .execute();
    const gateway = a.bff.ctx.gateway;
    const search = gateway.searchConcilByOperationDate.bind(gateway);
    let otherLed: boolean | undefined;
    gateway.searchConcilByOperationDate = async (q, o) => {
      if (otherLed === undefined) {
        // A minute into the round: its lease (5 s at a 1 s interval) would have lapsed; the
        // leader renews it every 5/3 s while the round runs.
        a.clock.advance(61_000);
        b.clock.advance(61_000);
        await new Promise((r) => setTimeout(r, 2_500));
        otherLed = (await roundEvery(b, 'bff_b', 1_000)).led;
      }
      return search(q, o);
    };
    try {
      expect((await roundEvery(a, 'bff_a', 1_000)).led).toBe(true);
    } finally {
      gateway.searchConcilByOperationDate = search;
      await store.db.deleteFrom('payment_attempts').where('session_id', '=', id).execute();
      await store.db.deleteFrom('checkout_sessions').where('id', '=', id).execute();
    }
    expect(otherLed).toBe(false);
    expect(await holder()).toBe('bff_a');
  });

  it('is given up by a leader that stops, and taken at once by another', async () => {
    lapse();
    const stop = startMaintenance(a.bff.ctx, {
      accountNumber: '1001',
      intervalMs: 60_000,
    });
    await stop(); // waits for its first round, which led
    expect(await holder()).toMatch(/^bff_[0-9a-f-]{36}$/);
    // No clock moved: the lease it held for two minutes is free.
    expect((await roundEvery(b, 'bff_b', 60_000)).led).toBe(true);
    expect(await holder()).toBe('bff_b');
  });
});

describe('rate limits with two instances', () => {
  it('the pay limit is per client, not per instance', async () => {
    const s = await a.createSession();
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      // An incomplete body: counted by the limit first, then refused for the body (400).
      const res = await (i % 2 ? a : b).frame(s.clientSecret, 'POST', '/checkout/api/pay', {
        body: { method: 'credit' },
        headers: { 'idempotency-key': `idem-instances-${i}` },
      });
      statuses.push(res.status);
    }
    // The default limit, 10 a minute per client address, across both instances together.
    expect(statuses.filter((st) => st === 400)).toHaveLength(10);
    expect(statuses.filter((st) => st === 429)).toHaveLength(14);
  });
});

describe('storing notices with two instances', () => {
  const rowsOf = (from: number, to: number) =>
    inboxDb(store.db)
      .selectFrom('webhook_inbox')
      .select(['movement_id', 'duplicates', 'conflict'])
      .where('movement_id', '>=', from)
      .where('movement_id', '<', to)
      .execute();

  const rowOf = (m: number) =>
    receivedRow(
      {
        movement_id: m,
        nsu: String(m),
        cod_auth: 'ZZ9999',
        installment_number: 1,
        moment: '2026-05-01T10:00:00.000-03:00',
        type: 'TransactionStatus',
        old_value: '',
        new_value: 'Canceled',
      },
      new Date(),
    );
  /** Hands the receiver of `to` the notices `ids` in one tick, as a burst of requests would. */
  const storeAll = (to: TestBff, ids: number[]) => {
    const r = webhookReceiverOf(to.bff.ctx) as unknown as {
      store(row: ReturnType<typeof rowOf>): Promise<string>;
    };
    return ids.map((m) => r.store(rowOf(m)));
  };

  it('a burst larger than one transaction is stored whole, each notice once', async () => {
    const ids = Array.from({ length: 250 }, (_, i) => 9_600_000 + i);
    const answers = await Promise.all([...storeAll(a, ids), ...storeAll(a, ids.slice(0, 10))]);
    expect(answers.filter((x) => x === 'stored')).toHaveLength(250);
    const rows = await rowsOf(9_600_000, 9_600_250);
    expect(rows).toHaveLength(250);
    expect(rows.filter((r) => Number(r.duplicates) > 0)).toHaveLength(10);
  });

  it('two bodies of one movementId reaching the two instances at once are both flagged conflict', async () => {
    for (let i = 0; i < 20; i++) {
      const m = 9_700_000 + i;
      const answers = await Promise.all([notice(a, m, 'Canceled'), notice(b, m, 'Authorized')]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
    }
    const rows = await rowsOf(9_700_000, 9_700_020);
    expect(rows).toHaveLength(40);
    expect(rows.filter((r) => Number(r.conflict) !== 1)).toEqual([]);
  });

  // PostgreSQL only (`npm run test:postgres`): a third connection holds a row both flushes
  // insert, so each stops half-way through its batch (SQLite has one writer at a time).
  const onPostgres = /^postgres(ql)?:/.test(process.env.BFF_TEST_DATABASE_URL ?? '');
  if (onPostgres) {
    it('on PostgreSQL, one burst flushed by both instances in opposite orders is stored, no deadlock', async () => {
      const ids = Array.from({ length: 40 }, (_, i) => 9_800_000 + i);
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(store.db))
        .rows[0]!.s;
      const url = new URL(process.env.BFF_TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const { default: pg } = await import('pg');
      const blocker = new pg.Client({ connectionString: url.toString() });
      await blocker.connect();
      let stored: Promise<PromiseSettledResult<string>[]>;
      try {
        const middle = rowOf(ids[20]!);
        await blocker.query('begin');
        await blocker.query(
          `insert into webhook_inbox (${Object.keys(middle).join(', ')})
             values (${Object.keys(middle).map((_, i) => `$${i + 1}`)})`,
          Object.values(middle),
        );
        // Each instance's batch in one flush: A in arrival order, B the other way round.
        stored = Promise.allSettled([...storeAll(a, ids), ...storeAll(b, [...ids].reverse())]);
        let waiting = 0;
        for (let i = 0; i < 400 && waiting < 2; i++) {
          await new Promise((r) => setTimeout(r, 25));
          // A flush waiting on the blocker's row, or on the other's lock of its movements.
          const w = await sql`select 1 from pg_stat_activity where wait_event_type = 'Lock'
            and (query like ${'insert into "webhook_inbox"%'} or query like ${'%pg_advisory_xact_lock%'})`.execute(
            store.db,
          );
          waiting = w.rows.length;
        }
        expect(waiting).toBe(2);
      } finally {
        await blocker.query('rollback');
        await blocker.end();
      }
      const answers = await stored;
      expect(answers.filter((x) => x.status === 'rejected')).toEqual([]);
      const rows = await rowsOf(9_800_000, 9_800_040);
      expect(rows).toHaveLength(40);
      expect(rows.every((r) => Number(r.duplicates) === 1 && Number(r.conflict) === 0)).toBe(true);
    });
  }
});

describe('the card public key with two instances', () => {
  it('a ciphertext refused on one instance makes the other read the key again too', async () => {
    const s = await a.createSession();
    const keyOf = (t: TestBff) => t.frame(s.clientSecret, 'GET', '/checkout/api/public-key');
    // Both instances hold the key (a frame load on each).
    for (const t of [a, b]) expect((await keyOf(t)).status).toBe(200);
    const readByB = vi.spyOn(b.bff.ctx.gateway, 'getPublicKey');
    try {
      expect((await keyOf(b)).status).toBe(200);
      expect(readByB).not.toHaveBeenCalled();

      // A pay on A with a ciphertext the gateway cannot open (as after a key rotation), in a
      // rate-limit window of its own (the test above used this client's up).
      a.clock.advance(120_000);
      const res = await payWithAnotherKey(a, s.clientSecret);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'invalid_card' } });

      // The shopper's frame reads the key again, through B this time: B asks the gateway
      // rather than hand out the key A found refused (and cost the shopper another attempt).
      expect((await keyOf(b)).status).toBe(200);
      expect(readByB).toHaveBeenCalledTimes(1);
      // Read once: B's new copy stands until the next refusal.
      expect((await keyOf(b)).status).toBe(200);
      expect(readByB).toHaveBeenCalledTimes(1);
    } finally {
      readByB.mockRestore();
    }
  });
});
