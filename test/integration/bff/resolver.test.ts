import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { inboxDb } from '../../../server/bff/webhooks/store';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { encryptWithKey, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';

// A BFF whose gateway calls give up after 400 ms, and a helper BFF on the same sandbox that
// reads the card key (the slow one would time out fetching it).
let slow: TestBff;
let helper: TestBff;
beforeAll(async () => {
  helper = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  slow = await startBff({
    config: { payRateLimitPerMinute: 10_000 },
    sandbox: helper.sandbox,
    gatewayTimeoutMs: 400,
  });
  // Warm the token (readyz has its own, longer timeout): only the payment may be slow.
  expect((await slow.request('GET', '/readyz')).status).toBe(200);
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

interface Detail {
  status: string;
  attempts: { status: string; paymentId: string | null; nsu: string | null }[];
  payment: { paymentId: string; nsu: string | null; canceledAt: string | null } | null;
}
const detail = async (id: string) =>
  (await slow.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as Detail;

/** A credit payment the sandbox answers after the BFF gave up: the attempt is unknown. */
async function timedOutPayment(number: string, amount: number) {
  const s = await slow.createSession({ amount });
  const key = await helper.publicKey((await helper.createSession()).clientSecret);
  const body = await slow.payBody(s.clientSecret, number, {
    method: 'credit',
    encryptedCard: encryptWithKey(key, number),
  });
  const fault = await slow.sandbox.call('POST', '/__sandbox/faults', {
    token: null,
    body: { method: 'POST', path: '/v1/payments', count: 1, latencyMs: 1000 },
  });
  expect(fault.status).toBeLessThan(300);
  const res = await slow.pay(s.clientSecret, body);
  expect(res.body).toMatchObject({ status: 'failed', error: { code: 'try_again_later' } });
  expect((await detail(s.id)).attempts.map((a) => a.status)).toEqual(['unknown']);
  // The sandbox finishes the payment once its delay is over.
  await new Promise((r) => setTimeout(r, 1200));
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
    const mine = sale.find((r) => r.transactionReference === s.id)!;
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
    expect(await resolve()).toEqual({ resolved: [], stillUnknown: [] });
  });

  it('a declined sale leaves no ledger row: the attempt stays unknown, the session failed', async () => {
    const s = await timedOutPayment('4000000000000002', 777);
    const report = await resolve();
    expect(report.resolved).toEqual([]);
    expect(report.stillUnknown).toHaveLength(1);
    const d = await detail(s.id);
    expect(d.status).toBe('failed');
    expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
  });

  it('an attempt is not looked up before it has settled', async () => {
    const report = await resolveUnknownAttempts(slow.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 60 * 60_000,
    });
    expect(report).toEqual({ resolved: [], stillUnknown: [] });
  });
});
