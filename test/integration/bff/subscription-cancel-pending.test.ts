import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutEvent, ListPage } from '../../../contract/events';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { payPlanPending } from '../../support/plan-pay';

// A subscription the merchant cancels while its checkout is still `pending` (the pay could not
// read the first billing): the merchant's events tell it was created, then canceled — once
// each, in that order — whether the cancel or the settlement of the checkout comes first.
let t: TestBff;
let planId: string;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      name: 'Cancel pending monthly',
      description: 'Cancel pending membership',
      paymentMethod: 'CreditCard',
      amount: 49.9,
      planType: 'Monthly',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  planId = res.body as string;
});
afterAll(() => t.close());

/** A plan session paid while the billing search fails once: pending, its subscription made. */
async function payPending(): Promise<{ sessionId: string; subscriptionId: string }> {
  const created = await payPlanPending(t, planId, '5200000000002235');
  const detail = (
    await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant })
  ).body as { attempts: { subscriptionId: string }[] };
  return { sessionId: created.id, subscriptionId: detail.attempts[0]!.subscriptionId };
}

const resolve = () =>
  resolveUnknownAttempts(t.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
  });

const cancel = (subscriptionId: string) =>
  t.request('POST', `/v1/subscriptions/${subscriptionId}/cancel`, { headers: merchant });

/** The subscription events of one subscription, oldest first. */
async function subscriptionEvents(subscriptionId: string) {
  const page = (await t.request('GET', '/v1/events?limit=100', { headers: merchant }))
    .body as ListPage<CheckoutEvent>;
  return page.data
    .filter(
      (e) => e.type.startsWith('subscription.') && (e.data as { id: string }).id === subscriptionId,
    )
    .reverse()
    .map((e) => ({ type: e.type, status: (e.data as { status: string }).status }));
}

const CREATED_THEN_CANCELED = [
  { type: 'subscription.created', status: 'Active' },
  { type: 'subscription.canceled', status: 'Canceled' },
];

describe('a subscription canceled while its checkout is pending', () => {
  it('canceled before the resolver settles the checkout: created, then canceled', async () => {
    const { sessionId, subscriptionId } = await payPending();
    const res = await cancel(subscriptionId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: subscriptionId, status: 'Canceled' });
    // Not told yet: the merchant has not been told the subscription exists.
    expect(await subscriptionEvents(subscriptionId)).toEqual([]);

    await resolve();
    const session = await t.request('GET', `/v1/checkout-sessions/${sessionId}`, {
      headers: merchant,
    });
    // The first billing was paid: the checkout succeeded, and the subscription is canceled.
    expect(session.body).toMatchObject({ status: 'succeeded' });
    expect(await subscriptionEvents(subscriptionId)).toEqual(CREATED_THEN_CANCELED);

    // A second cancel and a second resolver round add nothing.
    expect((await cancel(subscriptionId)).status).toBe(200);
    await resolve();
    expect(await subscriptionEvents(subscriptionId)).toEqual(CREATED_THEN_CANCELED);
  });

  it('settled while the cancel waits for the gateway: created, then canceled', async () => {
    const { subscriptionId } = await payPending();
    const gateway = t.bff.ctx.gateway;
    const setStatus = gateway.setSubscriptionStatus.bind(gateway);
    // The resolver succeeds the checkout after the cancel read its attempt, before it is told
    // the gateway canceled the subscription.
    gateway.setSubscriptionStatus = async (...args) => {
      await resolve();
      return setStatus(...args);
    };
    try {
      expect((await cancel(subscriptionId)).status).toBe(200);
    } finally {
      gateway.setSubscriptionStatus = setStatus;
    }
    expect(await subscriptionEvents(subscriptionId)).toEqual(CREATED_THEN_CANCELED);
  });

  it('settled before the cancel: created, then canceled (as before)', async () => {
    const { subscriptionId } = await payPending();
    await resolve();
    expect(await subscriptionEvents(subscriptionId)).toEqual([
      { type: 'subscription.created', status: 'Active' },
    ]);
    expect((await cancel(subscriptionId)).status).toBe(200);
    expect(await subscriptionEvents(subscriptionId)).toEqual(CREATED_THEN_CANCELED);
  });
});
