import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import type { PayResult } from '../../../server/bff/checkout-api';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { inboxDb } from '../../../server/bff/webhooks/store';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { advanceDays, createPlan, monthlyPlan } from '../sandbox/recurrence/helpers';

// The notices of a subscription's later billings: the sale of each carries the subscription's
// order number, as its first billing's does, but is not the checkout attempt's payment.
let t: TestBff;
const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const webhooks = '/api/webhooks/subscriptions?accountNumber=1001';

beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

async function register() {
  const res = await t.sandbox.call('POST', webhooks, {
    token: await t.sandbox.token('integration'),
    body: { url: `${t.url}/webhooks/gateway`, basicAuth: basic.slice(6) },
  });
  expect(res.status).toBe(200);
}

/** A plan checkout paid with a good card: its session and subscription. */
async function subscribe(plan: object) {
  const planId = await createPlan(t.sandbox, plan);
  const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
  );
  const result = res.body as PayResult & { payment: { subscriptionId: string } };
  expect(result.status).toBe('succeeded');
  return { sessionId: s.id, subscriptionId: result.payment.subscriptionId };
}

/** The ledger sale of each installment of a subscription (the sandbox's billings name it). */
async function salesOf(subscriptionId: string) {
  const billings = await t.sandbox.sandbox.ctx.db
    .selectFrom('recurrence_billings')
    .select(['installment', 'payment_id'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('installment')
    .execute();
  const today = t.sandbox.sandbox.ctx.clock.now().getTime();
  const day = (d: number) => new Date(today + d * 86_400_000).toISOString().slice(0, 10);
  const ledger = await t.bff.ctx.gateway.searchConcilByOperationDate({
    accountNumber: '1001',
    startDate: day(-60),
    endDate: day(1),
  });
  return billings.map((b) => {
    const sale = ledger.find((r) => r.transactionPaymentIdWeb === b.payment_id);
    expect(sale, `installment ${b.installment} sold`).toBeDefined();
    return {
      installment: b.installment,
      paymentId: b.payment_id!,
      nsu: sale!.nsu,
      codAuth: sale!.codAuth ?? '',
    };
  });
}

/** Every notice of a sale, once none is waiting to be confirmed. */
async function noticesOf(nsu: string, atLeast: number) {
  for (let i = 0; i < 400; i++) {
    await webhookReceiverOf(t.bff.ctx).idle();
    const rows = await inboxDb(t.bff.ctx.db)
      .selectFrom('webhook_inbox')
      .select(['new_value', 'status', 'attempt_id'])
      .where('nsu', '=', nsu)
      .execute();
    if (rows.length >= atLeast && rows.every((r) => r.status !== 'received')) return rows;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the notices of ${nsu} were not processed`);
}

async function events(type: string) {
  const res = await t.request('GET', `/v1/events?type=${type}&limit=100`, { headers: merchant });
  expect(res.status).toBe(200);
  return (res.body as ListPage<EventWithDelivery>).data;
}

const paymentOf = async (sessionId: string) =>
  (
    (await t.request('GET', `/v1/checkout-sessions/${sessionId}`, { headers: merchant })).body as {
      payment: { nsu: string | null; paymentId: string | null; canceledAt: string | null };
    }
  ).payment;

describe('a later billing of a subscription the checkout made', () => {
  it('its notices are the subscription’s; its confirmed cancel is billing.canceled', async () => {
    await register();
    const { sessionId, subscriptionId } = await subscribe({
      ...monthlyPlan,
      name: 'Later monthly',
    });
    await advanceDays(t.sandbox, 31);
    const [first, second] = await salesOf(subscriptionId);
    expect(second?.installment).toBe(2);

    const ctl = (path: string, body: unknown) =>
      t.sandbox
        .call('POST', `/__sandbox${path}`, { token: null, body })
        .then((r) => r.body as { id: string });
    const open = await ctl('/cancellation-requests', {
      paymentId: second!.paymentId,
      description: 'x',
    });
    await ctl(`/cancellation-requests/${open.id}/decide`, { status: 'APROVADO' });
    await ctl(`/cancellation-requests/${open.id}/decide`, { status: 'CANCELADO' });

    const notices = await noticesOf(second!.nsu, 2);
    expect(notices.map((n) => n.new_value)).toEqual(
      expect.arrayContaining(['Authorized', 'Canceled']),
    );
    const attempt = await t.bff.ctx.db
      .selectFrom('payment_attempts')
      .select('id')
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow();
    for (const n of notices)
      expect(n).toMatchObject({ status: 'processed', attempt_id: attempt.id });

    // One event of the canceled charge, naming its sale and subscription.
    const canceled = (await events('billing.canceled')).filter(
      (e) => (e.data as { subscriptionId?: string }).subscriptionId === subscriptionId,
    );
    expect(canceled).toHaveLength(1);
    expect(canceled[0]!.data).toMatchObject({
      subscriptionId,
      sessionId,
      paymentId: second!.paymentId,
      nsu: second!.nsu,
      amount: 4_990,
      currency: 'BRL',
    });
    // The checkout's own payment (the first billing's) is neither replaced nor canceled.
    expect((await events('payment.canceled')).map((e) => e.data.sessionId)).not.toContain(
      sessionId,
    );
    expect(await paymentOf(sessionId)).toMatchObject({
      nsu: first!.nsu,
      paymentId: first!.paymentId,
      canceledAt: null,
    });
  });

  it('a trial checkout takes its payment from the first billing’s sale only', async () => {
    // The notices of the first billing never reached the BFF (no URL registered then).
    const gone = await t.sandbox.call('DELETE', webhooks, {
      token: await t.sandbox.token('integration'),
    });
    expect(gone.status).toBe(200);
    const { sessionId, subscriptionId } = await subscribe({
      ...monthlyPlan,
      name: 'Later trial',
      trialDays: 7,
    });
    expect((await paymentOf(sessionId)).nsu).toBeNull();
    await advanceDays(t.sandbox, 8);
    await advanceDays(t.sandbox, 30);
    const [first, second] = await salesOf(subscriptionId);
    expect(second?.installment).toBe(2);

    // The second billing's notice first: the subscription's, not the checkout's payment.
    const deliver = async (movementId: number, sale: { nsu: string; codAuth: string }) => {
      const res = await t.request('POST', '/webhooks/gateway', {
        body: {
          movementId,
          nsu: sale.nsu,
          codAuth: sale.codAuth,
          installmentNumber: 1,
          moment: '2026-05-01T10:00:00.000-03:00',
          type: 'TransactionStatus',
          oldValue: '',
          newValue: 'Authorized',
        },
        headers: { authorization: basic },
      });
      expect(res.status).toBe(200);
    };
    await deliver(9_000_001, second!);
    expect(await noticesOf(second!.nsu, 1)).toMatchObject([{ status: 'processed' }]);
    expect((await paymentOf(sessionId)).nsu).toBeNull();
    // The first billing's notice: the checkout's payment.
    await deliver(9_000_002, first!);
    expect(await noticesOf(first!.nsu, 1)).toMatchObject([{ status: 'processed' }]);
    expect(await paymentOf(sessionId)).toMatchObject({
      nsu: first!.nsu,
      paymentId: first!.paymentId,
    });
  });
});
