import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { SUBSCRIPTION_TURN } from '../../../server/bff/payments/subscription-turns';
import { inboxDb } from '../../../server/bff/webhooks/store';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { encryptWithKey, MERCHANT_SECRET, type TestBff } from '../../support/bff';
import { LATE_ANSWER_MS, payTimingOut, startSlowBff } from '../../support/slow-bff';
import { failWrites } from '../../support/store-failures';
import { attemptRow, seedSessionWithAttempt } from '../../support/store-rows';

// A BFF whose gateway calls give up after 400 ms, beside a helper BFF (support/slow-bff.ts).
let slow: TestBff;
let helper: TestBff;
beforeAll(async () => {
  ({ slow, helper } = await startSlowBff());
});
afterAll(async () => {
  await slow.close();
  await helper.close();
});

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const resolve = () =>
  resolveUnknownAttempts(slow.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
  });

/** A resolver round during which writes to `table` fail (`failWrites`): it must throw. */
async function roundFailingOn(table: string, op?: 'insert' | 'update', when?: string) {
  const restore = await failWrites(slow.bff.ctx.db, table, op, when);
  try {
    await expect(resolve()).rejects.toThrow(/injected failure/);
  } finally {
    await restore();
  }
}

interface Detail {
  status: string;
  attemptsLeft: number;
  attempts: {
    id: string;
    status: string;
    failureCode: string | null;
    paymentId: string | null;
    nsu: string | null;
  }[];
  payment: { paymentId: string; nsu: string | null; canceledAt: string | null } | null;
}
const detail = async (id: string) =>
  (await slow.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as Detail;

/** A credit payment the sandbox answers after the BFF gave up: the attempt is unknown. */
async function timedOutPayment(number: string, amount: number, referenceTransaction?: string) {
  const s = await slow.createSession({
    amount,
    ...(referenceTransaction ? { referenceTransaction } : {}),
  });
  const body = await payTimingOut({ slow, helper }, s.clientSecret, number, '/v1/payments');
  const d = await detail(s.id);
  expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
  expect(d).toMatchObject({ status: 'pending', attemptsLeft: 0 });
  const view = await slow.frame(s.clientSecret, 'GET', '/checkout/api/session');
  expect(view.body).toMatchObject({ status: 'pending', attemptsLeft: 0 });
  expect(view.body).not.toHaveProperty('outcome');
  // No second payment while the first one's outcome is unknown.
  const again = await slow.pay(s.clientSecret, await slow.payBody(s.clientSecret, number, body));
  expect(again.status).toBe(409);
  expect((again.body as { tag: string }[])[0]?.tag).toBe('payment_pending');
  // The sandbox finishes the payment once its delay is over.
  await new Promise((r) => setTimeout(r, LATE_ANSWER_MS));
  return s;
}

describe('timed-out payments settled from the reconciliation ledger', () => {
  it('an approved sale found by reference and amount: attempt and session succeed, early notice linked', async () => {
    const s = await timedOutPayment('4000000000002701', 12_345);
    // A notice that came while the attempt was unknown could not be matched.
    const sale = (
      await slow.sandbox.call(
        'POST',
        `/api/transaction/concil/search-by-operation-date?accountNumber=1001&startDate=${day(-1)}&endDate=${day(1)}`,
        { token: await slow.sandbox.token('integration') },
      )
    ).body as { nsu: string; codAuth: string; transactionReference: string }[];
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    // The reference sent names the attempt (no merchant reference here: the attempt id).
    const mine = sale.find((r) => r.transactionReference === attemptId)!;
    expect(mine).toBeDefined();
    await inboxDb(slow.bff.ctx.db)
      .insertInto('webhook_inbox')
      .values({
        movement_id: 990_000_001,
        nsu: mine.nsu,
        cod_auth: mine.codAuth,
        installment_number: 1,
        moment: '2026-01-02T10:00:00.000-03:00',
        type: 'TransactionStatus',
        old_value: '',
        new_value: 'Authorized',
        status: 'unmatched',
        duplicates: 0,
        received_at: new Date().toISOString(),
        processed_at: new Date().toISOString(),
        attempt_id: null,
        body_hash: 'test-fixture',
        tries: 0,
        misses: 0,
        next_try_at: null,
        conflict: 0,
      })
      .execute();

    const report = await resolve();
    expect(report.resolved).toHaveLength(1);
    const d = await detail(s.id);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect(d.payment).toMatchObject({ nsu: mine.nsu, canceledAt: null });
    expect(d.payment?.paymentId).toMatch(/^\d{20}$/);
    const linked = await inboxDb(slow.bff.ctx.db)
      .selectFrom('webhook_inbox')
      .select(['status', 'attempt_id'])
      .where('movement_id', '=', 990_000_001)
      .executeTakeFirstOrThrow();
    expect(linked.status).toBe('processed');
    expect(linked.attempt_id).toMatch(/^pa_/);
    expect(slow.logs.some((l) => l.includes('"event":"payment.resolved"'))).toBe(true);

    // Settled once: the next round finds nothing to do.
    expect(await resolve()).toEqual({ resolved: [], notHappened: [], stillUnknown: [] });
  });

  it('a link that fails part-way leaves nothing half-done, and the next round links it', async () => {
    const s = await timedOutPayment('4000000000002701', 12_346);
    // The session's `checkout_session.succeeded` cannot be written: the link fails after its
    // first write, as a crash or a full disk would stop it.
    await roundFailingOn('bff_events');
    // Without one transaction the attempt stayed succeeded and its session pending, and no
    // later round looked at it again (only unknown attempts are looked up).
    let d = await detail(s.id);
    expect(d.status).toBe('pending');
    expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
    expect((await resolve()).resolved).toEqual([d.attempts[0]!.id]);
    d = await detail(s.id);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => a.status)).toEqual(['succeeded']);
  });

  it('a declined sale leaves no ledger row: pending for a day, then declared not to have happened', async () => {
    const s = await timedOutPayment('4000000000000002', 777);
    const report = await resolve();
    expect(report.resolved).toEqual([]);
    expect(report.stillUnknown).toHaveLength(1);
    let d = await detail(s.id);
    expect(d.status).toBe('pending');
    expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);

    // 23 hours later: still not certain.
    slow.clock.advance(23 * 3_600_000);
    expect((await resolve()).stillUnknown).toEqual(report.stillUnknown);
    // A day after the attempt, the ledger (searched through the day after it) has no sale.
    slow.clock.advance(3_600_000);
    expect((await resolve()).notHappened).toEqual(report.stillUnknown);
    d = await detail(s.id);
    expect(d.attempts[0]).toMatchObject({ status: 'failed', failureCode: 'try_again_later' });
    // The session took payments again, and has expired meanwhile (30 minutes).
    expect(d.status).toBe('expired');
    slow.clock.reset(0);
  });

  it('declaring an attempt not to have happened fails part-way: the next round declares it', async () => {
    const s = await timedOutPayment('4000000000000002', 778);
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    slow.clock.advance(24 * 3_600_000);
    try {
      // The session cannot take payments again (`pending → open`): the round stops there.
      await roundFailingOn('checkout_sessions', 'update', "new.status = 'open'");
      // Without one transaction the attempt stayed failed and its session pending for good.
      let d = await detail(s.id);
      expect(d.status).toBe('pending');
      expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
      expect((await resolve()).notHappened).toEqual([attemptId]);
      d = await detail(s.id);
      expect(d.status).not.toBe('pending');
      expect(d.attempts[0]).toMatchObject({ status: 'failed', failureCode: 'try_again_later' });
    } finally {
      slow.clock.reset(0);
    }
  });

  it('two sessions with the same reference and amount: A’s sale is never B’s', async () => {
    const ref = `ORDER-${Date.now()}`;
    // A pays normally.
    const a = await slow.createSession({ amount: 4_321, referenceTransaction: ref });
    const key = await helper.publicKey((await helper.createSession()).clientSecret);
    const aBody = await slow.payBody(a.clientSecret, '4000000000002701', {
      method: 'credit',
      encryptedCard: encryptWithKey(key, '4000000000002701'),
    });
    expect((await slow.pay(a.clientSecret, aBody)).body).toMatchObject({ status: 'succeeded' });
    // B's pay is dropped before it reaches the gateway: its outcome is unknown to the BFF.
    const b = await slow.createSession({ amount: 4_321, referenceTransaction: ref });
    const bBody = await slow.payBody(b.clientSecret, '4000000000002701', {
      method: 'credit',
      encryptedCard: encryptWithKey(key, '4000000000002701'),
    });
    await slow.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path: '/v1/payments', count: 1, drop: true },
    });
    expect((await slow.pay(b.clientSecret, bBody)).body).toEqual({ status: 'pending' });
    const bAttempt = (await detail(b.id)).attempts[0]!.id;

    const first = await resolve();
    expect(first.resolved).not.toContain(bAttempt);
    expect(first.stillUnknown).toContain(bAttempt);
    expect((await detail(b.id)).status).toBe('pending');
    // The merchant's reference stays readable in what the gateway got, beside the attempt.
    const rows = (
      await slow.sandbox.call(
        'POST',
        `/api/transaction/concil/search-by-operation-date?accountNumber=1001&startDate=${day(-1)}&endDate=${day(1)}`,
        { token: await slow.sandbox.token('integration') },
      )
    ).body as { transactionReference: string }[];
    const aAttempt = (await detail(a.id)).attempts[0]!.id;
    expect(rows.map((r) => r.transactionReference)).toContain(`${ref}/${aAttempt}`);

    // A day later B is declared not to have happened; never succeeded with A's payment.
    slow.clock.advance(24 * 3_600_000);
    const later = await resolve();
    expect(later.notHappened).toContain(bAttempt);
    const d = await detail(b.id);
    expect(d.status).not.toBe('succeeded');
    expect(d.payment).toBeNull();
    slow.clock.reset(0);
  });

  it('the database refuses to link one sale to two attempts', async () => {
    const a = await slow.createSession({ amount: 1_111 });
    const key = await helper.publicKey((await helper.createSession()).clientSecret);
    const body = await slow.payBody(a.clientSecret, '4000000000002701', {
      method: 'credit',
      encryptedCard: encryptWithKey(key, '4000000000002701'),
    });
    expect((await slow.pay(a.clientSecret, body)).body).toMatchObject({ status: 'succeeded' });
    const sale = (await detail(a.id)).payment!;
    const other = await slow.createSession({ amount: 1_111 });
    const now = new Date().toISOString();
    await slow.bff.ctx.db
      .insertInto('payment_attempts')
      .values(
        attemptRow('pa_unique_index_probe', other.id, {
          amount: 1_111,
          created_at: now,
          updated_at: now,
          gateway_reference: 'probe',
          card_brand: null,
          card_last4: null,
        }),
      )
      .execute();
    const codAuth = (
      await slow.request('GET', `/v1/checkout-sessions/${a.id}`, { headers: merchant })
    ).body as { payment: { authorizationCode: string } };
    await expect(
      slow.bff.ctx.db
        .updateTable('payment_attempts')
        .set({
          status: 'succeeded',
          nsu: sale.nsu,
          authorization_code: codAuth.payment.authorizationCode,
        })
        .where('id', '=', 'pa_unique_index_probe')
        .execute(),
    ).rejects.toThrow(/unique|UNIQUE/);
  });

  it('an attempt is not looked up before it has settled', async () => {
    const report = await resolveUnknownAttempts(slow.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 60 * 60_000,
    });
    expect(report).toEqual({ resolved: [], notHappened: [], stillUnknown: [] });
  });
});

describe('a batch of subscription attempts waiting for proof', () => {
  it('does not keep the payments behind it from being looked up', async () => {
    // 200 subscription attempts older than any payment, still unknown (a plan too big to read
    // whole keeps them so): more than a round looks up.
    const db = slow.bff.ctx.db;
    const ids = Array.from({ length: 200 }, (_, i) => `cs_stuck_${i}`);
    for (const id of ids) {
      await seedSessionWithAttempt(db, id);
      await db
        .updateTable('checkout_sessions')
        .set({ status: 'pending', plan_id: 'plan_stuck', plan_json: '{"name":"Stuck plan"}' })
        .where('id', '=', id)
        .execute();
    }
    try {
      const s = await timedOutPayment('4000000000002701', 2_345);
      const attemptId = (await detail(s.id)).attempts[0]!.id;
      const report = await resolve();
      expect(report.resolved).toEqual([attemptId]);
      expect(report.stillUnknown).toHaveLength(SUBSCRIPTION_TURN);
      expect((await detail(s.id)).status).toBe('succeeded');
    } finally {
      await db.deleteFrom('payment_attempts').where('session_id', 'in', ids).execute();
      await db.deleteFrom('checkout_sessions').where('id', 'in', ids).execute();
    }
  });
});
