import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult, PublicSession } from '../../../server/bff/checkout-api';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  startBff,
  type TestBff,
  apiError,
} from '../../support/bff';
import { payPlanPending } from '../../support/plan-pay';

let t: TestBff;
let planId: string;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  planId = await createPlan({ name: 'Gold monthly', amount: 49.9, planType: 'Monthly' });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

async function createPlan(fields: {
  name: string;
  amount: number;
  planType: string;
  attempts?: number;
  trialDays?: number;
}) {
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: { description: `${fields.name} membership`, paymentMethod: 'CreditCard', ...fields },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as string;
}

/** A plan session paid with `card` while the billing search fails once: answered pending. */
function payWithBillingSearchDown(card: string) {
  return payPlanPending(t, planId, card);
}

/**
 * A plan session (retries allowed) paid with a card whose first billing waits for its retry
 * (51), while the gateway fails `failing` (its next `count` calls) when given.
 */
async function payRetryingFirstBilling(
  plan: { name: string; amount: number },
  failing?: { path: string; count: number },
) {
  const planId = await createPlan({ ...plan, planType: 'Monthly', attempts: 2 });
  const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
  if (failing) {
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', ...failing, status: 500 },
    });
  }
  try {
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    return { planId, created, res };
  } finally {
    await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
  }
}

/** The status of the first billing of the newest subscription to `planId`. */
async function billingStatusOf(planId: string): Promise<string | undefined> {
  const billings = await t.sandbox.call('GET', '/v1/recurrences/billing?limit=20');
  return (
    billings.body as { items: { status: string; subscription: { plan: { id: string } } }[] }
  ).items.find((b) => b.subscription.plan.id === planId)?.status;
}

function createSession(body: object) {
  return t.request('POST', '/v1/checkout-sessions', {
    headers: merchant,
    body: { origin: MERCHANT_ORIGIN, ...body },
  });
}

describe('subscription checkout (planId)', () => {
  it('takes the amount from the plan and shows the plan to the frame', async () => {
    const res = await createSession({ planId });
    expect(res.status).toBe(201);
    const s = res.body as { clientSecret: string; amount: number };
    expect(s.amount).toBe(4990);
    const pub = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(pub.body).toMatchObject({
      amount: 4990,
      methods: ['credit'],
      maxInstallments: 1,
      plan: {
        id: planId,
        name: 'Gold monthly',
        amount: 4990,
        intervalDays: 30,
        description: 'Gold monthly membership',
      },
    } satisfies Partial<PublicSession>);
  });

  it.each([
    [{ planId: 'no-such-plan' }, 'planId'],
    [{ planId: 'x', amount: 100 }, 'amount'],
    [{ planId: 'x', methods: ['debit'] }, 'methods'],
    // Not stored as something else: a plan is paid by credit in one installment.
    [{ planId: 'x', methods: ['credit', 'debit'] }, 'methods', 'credit card only'],
    [{ planId: 'x', maxInstallments: 12 }, 'maxInstallments', 'must be 1'],
  ])('400 for %o', async (body, tag, rule?: string) => {
    const fresh = body.planId === 'x' ? { ...body, planId } : body;
    const res = await createSession(fresh);
    expect(res.status).toBe(400);
    expect(apiError(res).param).toBe(tag);
    if (rule) expect(apiError(res).message).toContain(rule);
  });

  it('accepts what a plan session is anyway: credit only, one installment', async () => {
    const res = await createSession({ planId, methods: ['credit'], maxInstallments: 1 });
    expect(res.status).toBe(201);
  });

  it('refuses a plan that is not Active', async () => {
    const inactive = await createPlan({ name: 'Old plan', amount: 10, planType: 'Yearly' });
    const st = await t.sandbox.call('POST', `/v1/recurrences/plans/${inactive}/status`, {
      body: { status: 'Inactive' },
    });
    expect(st.status).toBe(200);
    const res = await createSession({ planId: inactive });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('Inactive');
  });

  it('paying vaults the card and subscribes it; the gateway holds an Active subscription', async () => {
    const created = (await createSession({ planId, referenceTransaction: 'sub-42' })).body as {
      id: string;
      clientSecret: string;
    };
    const debit = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701'),
    );
    expect(debit.status).toBe(400);
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({
      status: 'succeeded',
      payment: { amount: 4990, installments: 1, method: 'credit' },
    });
    const subscriptionId = result.payment.subscriptionId!;
    expect(subscriptionId).toEqual(expect.any(String));
    const sub = await t.sandbox.call('GET', `/v1/recurrences/subscriptions/${subscriptionId}`);
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const attemptId = (detail.body as { attempts: { id: string }[] }).attempts[0]!.id;
    // The order number names the attempt (its id's last ten), so the billings lead back to it.
    expect(sub.body).toMatchObject({
      id: subscriptionId,
      status: 'Active',
      orderNumber: attemptId.slice(-10),
    });
    expect((sub.body as { plan: { id: string } }).plan.id).toBe(planId);
    expect(detail.body).toMatchObject({
      status: 'succeeded',
      plan: { id: planId },
      payment: { subscriptionId },
    });
    // The first billing's evidence: billing id, status, amount, and its sale's NSU, code and
    // payment id from the gateway's ledger, also in what the shopper's page was told.
    const payment = (
      detail.body as {
        payment: {
          paymentId: string;
          nsu: string;
          authorizationCode: string;
          firstBilling: Record<string, unknown>;
        };
      }
    ).payment;
    expect(payment.firstBilling).toEqual({
      id: expect.any(String) as unknown,
      status: 'Paid',
      amount: 4990,
      currency: 'BRL',
      nsu: expect.stringMatching(/.+/) as unknown,
      authorizationCode: expect.stringMatching(/.+/) as unknown,
      paymentId: expect.stringMatching(/.+/) as unknown,
    });
    expect(payment.nsu).toBe(payment.firstBilling.nsu);
    expect(result.payment.paymentId).toBe(payment.paymentId);
    expect(result.payment.authorizationCode).toBe(payment.authorizationCode);
  });

  it('quotes a plan of 1.005 as the 101 cents the gateway bills, not 100', async () => {
    const odd = await createPlan({ name: 'Odd monthly', amount: 1.005, planType: 'Monthly' });
    const created = (await createSession({ planId: odd })).body as {
      id: string;
      clientSecret: string;
      amount: number;
    };
    expect(created.amount).toBe(101);
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({ status: 'succeeded', payment: { amount: 101 } });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({
      amount: 101,
      payment: { firstBilling: { status: 'Paid', amount: 101 } },
    });
    const charged = await t.sandbox.sandbox.ctx.db
      .selectFrom('payments')
      .select('amount')
      .where('payment_id', '=', result.payment.paymentId!)
      .executeTakeFirstOrThrow();
    expect(charged.amount).toBe(101);
    // A plan may carry 12 integer digits; a payment only 10 digits of cents.
    const huge = await createPlan({ name: 'Huge', amount: 100_000_000, planType: 'Monthly' });
    const refused = await createSession({ planId: huge });
    expect(refused.status).toBe(400);
    expect(apiError(refused)).toMatchObject({ param: 'planId' });
  });

  it('a first billing that could not be read is not paid: pending until the resolver reads it', async () => {
    // The billing search after the subscription was made fails once; the billing was declined.
    const created = await payWithBillingSearchDown('4000000000000002');
    const session = () =>
      t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant });
    expect((await session()).body).toMatchObject({ status: 'pending' });

    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    const after = (await session()).body as {
      status: string;
      attempts: { id: string; status: string; failureCode: string; subscriptionId: string }[];
    };
    expect(report.resolved).toContain(after.attempts[0]!.id);
    expect(after.status).toBe('open');
    expect(after.attempts[0]).toMatchObject({ status: 'declined', failureCode: 'declined' });
    const sub = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions/${after.attempts[0]!.subscriptionId}`,
    );
    expect(sub.body).toMatchObject({ status: 'Canceled' });
  });

  it('a plan with a trial bills nothing at once: the checkout succeeds with no first billing', async () => {
    const trial = await createPlan({
      name: 'Trial monthly',
      amount: 29.9,
      planType: 'Monthly',
      trialDays: 7,
    });
    const created = (await createSession({ planId: trial })).body as {
      id: string;
      clientSecret: string;
    };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect(res.body).toMatchObject({ status: 'succeeded' });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'succeeded' });
    expect(
      (detail.body as { payment: { firstBilling?: unknown } }).payment.firstBilling,
    ).toBeFalsy();
  });

  it('without a trial, a first billing the searches do not show is not paid: it stays pending', async () => {
    const created = await payWithBillingSearchDown('4000000000002701');
    // The gateway's billing search does not show it (a busy account: beyond the pages read).
    const gateway = t.bff.ctx.gateway;
    const search = gateway.searchBillings.bind(gateway);
    gateway.searchBillings = () => Promise.resolve({ items: [], total: 0, page: 1, limit: 100 });
    const resolve = () =>
      resolveUnknownAttempts(t.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
      });
    const status = async () =>
      (
        (await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant }))
          .body as { status: string }
      ).status;
    try {
      await resolve();
      // Not taken for a trial: the plan has none, so its first billing was charged at creation.
      expect(await status()).toBe('pending');
    } finally {
      gateway.searchBillings = search;
    }
    await resolve();
    expect(await status()).toBe('succeeded');
  });

  it('a card the vault refuses leaves the session open with an attempt used', async () => {
    const created = (await createSession({ planId })).body as { clientSecret: string };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', {
        method: 'credit',
        encryptedCard: Buffer.from('not a ciphertext').toString('base64'),
      }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'invalid_card', retryable: true },
      attemptsLeft: 2,
    });
  });

  it('a 5xx while keeping the card charged nothing: try_again_later, retryable', async () => {
    const created = (await createSession({ planId })).body as { clientSecret: string };
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path: '/v1/cards/vault', count: 1, status: 500 },
    });
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
  });

  it('a 5xx while creating the subscription may have charged: pending', async () => {
    await payPlanPending(t, planId, '4000000000002701', {
      method: 'POST',
      path: '/v1/recurrences/subscriptions',
      status: 500,
    });
  });

  it('a declined first billing fails the attempt and cancels the subscription', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'declined', retryable: true },
      attemptsLeft: 2,
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const attempt = (detail.body as { attempts: { status: string; subscriptionId: string }[] })
      .attempts[0]!;
    expect(attempt.status).toBe('declined');
    const sub = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions/${attempt.subscriptionId}`,
    );
    expect(sub.body).toMatchObject({ status: 'Canceled' });

    // The shopper may try another card in the same session.
    const again = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '5200000000002235', { method: 'credit' }),
    );
    expect(again.body).toMatchObject({ status: 'succeeded' });
  });

  it('canceling the subscription a declined first billing left tells the merchant nothing', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    const paid = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '5200000000002235', { method: 'credit' }),
    );
    expect(paid.body).toMatchObject({ status: 'succeeded' });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const [declined, live] = (detail.body as { attempts: { subscriptionId: string }[] }).attempts;
    // The merchant tidies up the subscriptions it lists, the declined one among them.
    const res = await t.request('POST', `/v1/subscriptions/${declined!.subscriptionId}/cancel`, {
      headers: merchant,
    });
    expect(res.status).toBe(200);
    const events = await t.request('GET', '/v1/events?type=subscription.canceled&limit=100', {
      headers: merchant,
    });
    const about = (events.body as { data: { data: { id: string; sessionId: string } }[] }).data;
    // No cancel of a subscription never announced, under the session whose live one goes on.
    expect(about.filter((e) => e.data.sessionId === created.id)).toEqual([]);
    expect(live!.subscriptionId).not.toBe(declined!.subscriptionId);
  });

  it('a first billing waiting for a retry (51 with attempts left) reads as insufficient funds', async () => {
    const { planId: retrying, res } = await payRetryingFirstBilling({
      name: 'Retry monthly',
      amount: 19.9,
    });
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'insufficient_funds', retryable: true },
    });
    // Canceling the subscription canceled the billing that waited for its retry.
    expect(await billingStatusOf(retrying)).toBe('Canceled');
  });

  it('a first billing waiting for its retry is canceled itself; until it is, the pay is pending', async () => {
    // The billing cancel fails: canceling the subscription alone may leave it to be retried.
    const {
      planId: retrying,
      created,
      res,
    } = await payRetryingFirstBilling(
      { name: 'Retry billing monthly', amount: 23.9 },
      { path: '/v1/recurrences/billing/*', count: 1 },
    );
    expect(res.body).toEqual({ status: 'pending' });
    expect(await billingStatusOf(retrying)).toBe('Opened');

    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    const after = (
      await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant })
    ).body as { status: string; attempts: { id: string; status: string }[] };
    expect(report.resolved).toContain(after.attempts[0]!.id);
    expect(after).toMatchObject({ status: 'open', attempts: [{ status: 'declined' }] });
    expect(await billingStatusOf(retrying)).toBe('Canceled');
  });

  it('a failed first billing whose subscription cannot be canceled stays pending until it is', async () => {
    // The cancel of the subscription (its status call) fails: the gateway will retry the 51.
    const { created, res } = await payRetryingFirstBilling(
      { name: 'Retry cancel monthly', amount: 21.9 },
      { path: '/v1/recurrences/subscriptions/*', count: 5 },
    );
    // Not "try again": a second subscription would be billed beside the first one's retry.
    expect(res.body).toEqual({ status: 'pending' });
    const detail = async () =>
      (await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant }))
        .body as {
        status: string;
        attempts: { id: string; status: string; subscriptionId: string }[];
      };
    const before = await detail();
    expect(before.status).toBe('pending');
    expect(before.attempts[0]).toMatchObject({ status: 'unknown' });
    const subscription = async () =>
      (
        await t.sandbox.call(
          'GET',
          `/v1/recurrences/subscriptions/${before.attempts[0]!.subscriptionId}`,
        )
      ).body as { status: string };
    expect((await subscription()).status).toBe('Active');

    // The maintenance round finds the subscription, cancels it, and the shopper may pay again.
    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    expect(report.resolved).toContain(before.attempts[0]!.id);
    expect((await subscription()).status).toBe('Canceled');
    const after = await detail();
    expect(after.status).toBe('open');
    expect(after.attempts[0]).toMatchObject({ status: 'declined' });
    const pub = await t.frame(created.clientSecret, 'GET', '/checkout/api/session');
    expect(pub.body).toMatchObject({ status: 'open', attemptsLeft: 2 });
  });

  it('a plan whose price changed after the session was made expires the session, unbilled', async () => {
    const fields = { name: 'Reprice monthly', amount: 25, planType: 'Monthly' };
    const repriced = await createPlan(fields);
    const created = (await createSession({ planId: repriced })).body as {
      id: string;
      clientSecret: string;
      amount: number;
    };
    expect(created.amount).toBe(2500);
    // The merchant raises the price (the amount changes only while the plan is not Active).
    const status = (value: string) =>
      t.sandbox.call('POST', `/v1/recurrences/plans/${repriced}/status`, {
        body: { status: value },
      });
    expect((await status('Inactive')).status).toBe(200);
    const { merchantId } = (await t.sandbox.call('GET', `/v1/recurrences/plans/${repriced}`))
      .body as { merchantId: string };
    const update = await t.sandbox.call('POST', `/v1/recurrences/plans/${repriced}`, {
      body: {
        ...fields,
        merchantId,
        amount: 35,
        description: `${fields.name} membership`,
        paymentMethod: 'CreditCard',
      },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect((await status('Active')).status).toBe(200);

    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    // Not a subscription at R$ 35,00 beside a page that said R$ 25,00: start again.
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'expired', attempts: [] });
    const subs = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions?planName=${encodeURIComponent(fields.name)}`,
    );
    expect((subs.body as { total: number }).total).toBe(0);
    // A new session shows the plan as it is now.
    expect(((await createSession({ planId: repriced })).body as { amount: number }).amount).toBe(
      3500,
    );
  });

  it('a plan that cannot be read at pay time sends nothing: the shopper may try again', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const body = await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' });
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'GET', path: `/v1/recurrences/plans/${planId}`, count: 10, status: 500 },
    });
    let res;
    try {
      res = await t.pay(created.clientSecret, body);
    } finally {
      await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    }
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'open', attempts: [] });
  });

  it('GET /v1/subscriptions lists the subscriptions of the sessions with their billings', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const paid = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const subscriptionId = (paid.body as Extract<PayResult, { status: 'succeeded' }>).payment
      .subscriptionId!;

    expect((await t.request('GET', '/v1/subscriptions')).status).toBe(401);
    expect(
      (await t.request('GET', '/v1/subscriptions?limit=0', { headers: merchant })).status,
    ).toBe(400);

    const res = await t.request('GET', '/v1/subscriptions?limit=50', { headers: merchant });
    expect(res.status).toBe(200);
    const items = (res.body as { data: { id: string; status: string }[] }).data;
    expect(items[0]).toMatchObject({
      id: subscriptionId,
      status: 'Active',
      sessionId: created.id,
      plan: { id: planId, name: 'Gold monthly', amount: 4990, planType: 'Monthly' },
      billings: [{ status: 'Paid', amount: 4990, installment: 1 }],
      firstBilling: {
        status: 'Paid',
        amount: 4990,
        nsu: expect.stringMatching(/.+/) as unknown,
        authorizationCode: expect.stringMatching(/.+/) as unknown,
      },
    });
    const billingId = (items[0] as unknown as { billings: { id: string }[] }).billings[0]!.id;
    expect((items[0] as unknown as { firstBilling: { id: string } }).firstBilling.id).toBe(
      billingId,
    );
    // The declined subscriptions are listed too, canceled.
    expect(items.some((s) => s.status === 'Canceled')).toBe(true);
    expect(new Set(items.map((s) => s.id)).size).toBe(items.length);
  });
});
