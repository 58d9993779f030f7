import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicSession } from '../../../contract/checkout';
import { startBff, type TestBff } from '../../support/bff';
import { createPlanSession, payPlanCredit } from '../../support/plan-pay';

// The plan a session shows carries its terms — how many charges (0: until canceled) and the
// trial — and a plan whose terms changed since it was shown is not subscribed to.
let t: TestBff;

beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

type PlanFields = {
  name: string;
  planType: string;
  amount?: number;
  interval?: number;
  installments?: number;
  trialDays?: number;
};

const planBody = (fields: PlanFields) => ({
  description: `${fields.name} membership`,
  paymentMethod: 'CreditCard',
  amount: 25,
  ...fields,
});

async function createPlan(fields: PlanFields): Promise<string> {
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', { body: planBody(fields) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as string;
}

/** The merchant edits the plan (no subscription uses it yet, so the gateway takes it). */
async function updatePlan(id: string, fields: PlanFields): Promise<void> {
  const { merchantId } = (await t.sandbox.call('GET', `/v1/recurrences/plans/${id}`)).body as {
    merchantId: string;
  };
  const res = await t.sandbox.call('POST', `/v1/recurrences/plans/${id}`, {
    body: { ...planBody(fields), merchantId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const planSession = (planId: string) => createPlanSession(t, planId);
const payCredit = (s: { clientSecret: string }) => payPlanCredit(t, s);

const subscriptionsOf = async (planName: string) =>
  (
    (
      await t.sandbox.call(
        'GET',
        `/v1/recurrences/subscriptions?planName=${encodeURIComponent(planName)}`,
      )
    ).body as { total: number }
  ).total;

describe('the terms of the plan a session shows', () => {
  it('a Custom plan shows its number of charges; a Monthly one 0 (until canceled)', async () => {
    const custom = await createPlan({
      name: 'Ten charges',
      planType: 'Custom',
      interval: 30,
      installments: 10,
    });
    const monthly = await createPlan({ name: 'Open ended', planType: 'Monthly' });
    const shown = async (planId: string) => {
      const s = await planSession(planId);
      return ((await t.frame(s.clientSecret, 'GET', '/checkout/api/session')).body as PublicSession)
        .plan;
    };
    expect(await shown(custom)).toMatchObject({ intervalDays: 30, installments: 10 });
    expect(await shown(monthly)).toMatchObject({ intervalDays: 30, installments: 0 });
  });

  it.each([
    [
      'number of charges',
      { name: 'Recount', planType: 'Custom', interval: 30, installments: 3 },
      { installments: 6 },
    ],
    ['trial', { name: 'Retrial', planType: 'Monthly', trialDays: 0 }, { trialDays: 7 }],
  ])(
    'a plan whose %s changed since it was shown expires the session, unsubscribed',
    async (_, fields, change) => {
      const planId = await createPlan(fields);
      const s = await planSession(planId);
      await updatePlan(planId, { ...fields, ...change });
      expect(await payCredit(s)).toMatchObject({
        status: 'failed',
        error: { code: 'session_expired', retryable: false },
      });
      expect(await subscriptionsOf(fields.name)).toBe(0);
    },
  );

  it('a session made before its plan kept its terms is paid as it was: they are not compared', async () => {
    const fields = { name: 'Older session', planType: 'Custom', interval: 30, installments: 3 };
    const planId = await createPlan(fields);
    const s = await planSession(planId);
    // What a session created by the previous version stored: no installments, no trial.
    const row = await t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .select('plan_json')
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow();
    const {
      installments: _i,
      trialDays: _t,
      ...old
    } = JSON.parse(row.plan_json!) as Record<string, unknown>;
    await t.bff.ctx.db
      .updateTable('checkout_sessions')
      .set({ plan_json: JSON.stringify(old) })
      .where('id', '=', s.id)
      .execute();
    await updatePlan(planId, { ...fields, installments: 6 });
    expect(await payCredit(s)).toMatchObject({ status: 'succeeded' });
    expect(await subscriptionsOf(fields.name)).toBe(1);
  });
});
