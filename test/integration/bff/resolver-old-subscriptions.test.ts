import { afterEach, describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_ORIGIN } from '../../support/bff';
import { payPlanPending } from '../../support/plan-pay';
import { resolverSuite } from '../../support/resolver-suite';
import { LATE_ANSWER_MS, payTimingOut, slowBffForSuite } from '../../support/slow-bff';
import { seedSessionWithAttempt } from '../../support/store-rows';
import { createPlan, monthlyPlan } from '../sandbox/recurrence/helpers';

/**
 * Subscription attempts whose outcome is unknown, however old: after a week or more without a
 * maintenance round (every instance down, a store restored from a backup) the gateway still
 * knows whether the subscription was made, and it may be billing the shopper monthly. And
 * attempts that cannot progress (their plan unreadable) do not keep the others from their turn.
 */
const bffs = slowBffForSuite();
const DAY = 86_400_000;
const { merchant, resolve, detail, lostPayment } = resolverSuite(bffs);

afterEach(() => bffs.slow.clock.reset(0));

/** A plan session whose subscription the gateway makes after the BFF gave up waiting. */
async function timedOutSubscription(planId: string) {
  const created = await bffs.slow.request('POST', '/v1/checkout-sessions', {
    headers: merchant,
    body: { planId, origin: MERCHANT_ORIGIN },
  });
  expect(created.status).toBe(201);
  const s = created.body as { id: string; clientSecret: string };
  await payTimingOut(bffs, s.clientSecret, '4000000000002701', '/v1/recurrences/subscriptions');
  await new Promise((r) => setTimeout(r, LATE_ANSWER_MS));
  return { sessionId: s.id, attemptId: (await detail(s.id)).attempts[0]!.id };
}

describe('a subscription attempt unknown for more than a week', () => {
  it('whose subscription exists is settled: the checkout succeeds', async () => {
    const planId = await createPlan(bffs.slow.sandbox, { ...monthlyPlan, name: 'Old made' });
    const lost = await timedOutSubscription(planId);
    expect((await detail(lost.sessionId)).status).toBe('pending');
    bffs.slow.clock.advance(8 * DAY);
    const report = await resolve();
    expect(report).toMatchObject({ resolved: [lost.attemptId], notHappened: [] });
    expect((await detail(lost.sessionId)).status).toBe('succeeded');
  });

  it('whose subscription was never made is declared not to have happened, once proven', async () => {
    const planId = await createPlan(bffs.slow.sandbox, { ...monthlyPlan, name: 'Old not made' });
    // The subscription call fails with a 500: its outcome is unknown (it was not made).
    const { id: sessionId } = await payPlanPending(bffs.slow, planId, '4000000000002701', {
      method: 'POST',
      path: '/v1/recurrences/subscriptions',
      status: 500,
    });
    const attemptId = (await detail(sessionId)).attempts[0]!.id;
    bffs.slow.clock.advance(8 * DAY);
    const report = await resolve();
    expect(report).toMatchObject({ resolved: [], notHappened: [attemptId] });
    expect((await detail(sessionId)).attempts[0]).toMatchObject({
      status: 'failed',
      failureCode: 'try_again_later',
    });
  });
});

describe('subscription attempts whose plan cannot be read', () => {
  it('do not keep a payment or a readable plan’s attempt behind them from settling', async () => {
    const db = bffs.slow.bff.ctx.db;
    // 250 attempts of a plan the gateway does not have (deleted, another account's), made two
    // days ago: each round finds them unknown again, and they are the oldest.
    const made = new Date(bffs.slow.clock.now().getTime() - 2 * DAY).toISOString();
    const stuck: string[] = [];
    for (let i = 0; i < 250; i++) {
      const id = `cs_unreadable_${String(i).padStart(3, '0')}`;
      await seedSessionWithAttempt(db, id, { created_at: made, updated_at: made });
      await db
        .updateTable('checkout_sessions')
        .set({ status: 'pending', plan_id: 'plan-that-is-gone' })
        .where('id', '=', id)
        .execute();
      stuck.push(`pa_${id}`);
    }
    const planId = await createPlan(bffs.slow.sandbox, { ...monthlyPlan, name: 'Behind them' });
    const subscription = await timedOutSubscription(planId);
    const payment = await lostPayment(6_201);

    const resolved: string[] = [];
    const stillUnknown = new Set<string>();
    for (let round = 0; round < 4 && !resolved.includes(subscription.attemptId); round++) {
      const report = await resolveUnknownAttempts(bffs.slow.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
      });
      resolved.push(...report.resolved);
      for (const id of report.stillUnknown) stillUnknown.add(id);
      expect(report.notHappened).toEqual([]);
    }
    expect(resolved).toEqual(expect.arrayContaining([payment.attemptId, subscription.attemptId]));
    expect((await detail(subscription.sessionId)).status).toBe('succeeded');
    expect((await detail(payment.sessionId)).status).toBe('succeeded');
    // Not proven either way: every one of them was looked up, and left unknown.
    expect([...stillUnknown].sort()).toEqual(stuck);
  });
});
