import { afterAll, beforeAll, expect } from 'vitest';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, startBff, type TestBff } from './bff';
import { payPlanPending } from './plan-pay';

// The subscription checkout tests (test/integration/bff/subscriptions*.test.ts): one BFF per
// file and its plan "Gold monthly" (R$ 49,90 a month). `t` and `planId` are set by
// `useSubscriptionsBff()`'s beforeAll (read them inside tests).
export let t: TestBff;
export let planId: string;

/** Starts the BFF and creates the plan before the file's tests; stops the BFF after them. */
export function useSubscriptionsBff(): void {
  beforeAll(async () => {
    t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
    planId = await createPlan({ name: 'Gold monthly', amount: 49.9, planType: 'Monthly' });
  });
  afterAll(() => t.close());
}

export const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

export async function createPlan(fields: {
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
export function payWithBillingSearchDown(card: string) {
  return payPlanPending(t, planId, card);
}

/**
 * A plan session (retries allowed) paid with a card whose first billing waits for its retry
 * (51), while the gateway fails `failing` (its next `count` calls) when given.
 */
export async function payRetryingFirstBilling(
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
export async function billingStatusOf(planId: string): Promise<string | undefined> {
  const billings = await t.sandbox.call('GET', '/v1/recurrences/billing?limit=20');
  return (
    billings.body as { items: { status: string; subscription: { plan: { id: string } } }[] }
  ).items.find((b) => b.subscription.plan.id === planId)?.status;
}

export function createSession(body: object) {
  return t.request('POST', '/v1/checkout-sessions', {
    headers: merchant,
    body: { origin: MERCHANT_ORIGIN, ...body },
  });
}
