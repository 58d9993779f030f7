import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult, PublicSession } from '../../../contract/checkout';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { createPlanSession, payPlanCredit } from '../../support/plan-pay';

// A plan that starts with a trial charges nothing at checkout: the frame is told there is a
// trial before paying, and the success says nothing was charged and when the first charge is.
let t: TestBff;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

async function planSession(fields: { name: string; trialDays?: number }) {
  const plan = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      description: `${fields.name} membership`,
      paymentMethod: 'CreditCard',
      amount: 29.9,
      planType: 'Monthly',
      ...fields,
    },
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(200);
  return createPlanSession(t, plan.body as string);
}

const payCredit = (s: { clientSecret: string }) => payPlanCredit(t, s);

describe('a plan with a trial', () => {
  it('the frame is shown the trial; the success charged nothing and names the first charge', async () => {
    const s = await planSession({ name: 'Trial week', trialDays: 7 });
    const before = (await t.frame(s.clientSecret, 'GET', '/checkout/api/session'))
      .body as PublicSession;
    expect(before.plan).toMatchObject({ amount: 2990, intervalDays: 30, trialDays: 7 });

    const result = await payCredit(s);
    const detail = (await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant }))
      .body as { status: string; attempts: { createdAt: string; subscriptionId: string }[] };
    expect(detail.status).toBe('succeeded');
    // The gateway bills the first installment 7 days after the subscription: a São Paulo day.
    const due = new Date(Date.parse(detail.attempts[0]!.createdAt) + 7 * DAY - 3 * 3_600_000);
    const expected = {
      status: 'succeeded',
      payment: {
        amount: 0,
        installments: 1,
        method: 'credit',
        subscriptionId: detail.attempts[0]!.subscriptionId,
        trial: { days: 7, firstChargeOn: due.toISOString().slice(0, 10) },
      },
    };
    expect(result).toMatchObject(expected);
    // A reloaded frame reads the same outcome.
    const after = (await t.frame(s.clientSecret, 'GET', '/checkout/api/session'))
      .body as PublicSession;
    expect(after.outcome).toMatchObject(expected);
  });

  it('a plan without one: trialDays 0, the success carries the amount charged and no trial', async () => {
    const s = await planSession({ name: 'No trial' });
    const before = (await t.frame(s.clientSecret, 'GET', '/checkout/api/session'))
      .body as PublicSession;
    expect(before.plan).toMatchObject({ amount: 2990, trialDays: 0 });
    const result = (await payCredit(s)) as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({ status: 'succeeded', payment: { amount: 2990 } });
    expect(result.payment.trial).toBeUndefined();
  });
});
