import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import type { PayResult } from '../../../server/bff/checkout-api';
import { recordBillingEvents } from '../../../server/bff/subscriptions/billing-events';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { createPlan, gw, monthlyPlan, subscribeMany, vault } from '../sandbox/recurrence/helpers';

// Billing events on an account with more billings than one maintenance round reads (300).
let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

/** The `billing.paid` events the merchant API lists for a subscription, by installment. */
async function paidInstallments(subscriptionId: string): Promise<number[]> {
  const res = await t.request('GET', '/v1/events?type=billing.paid&limit=100', {
    headers: merchant,
  });
  expect(res.status).toBe(200);
  return (res.body as ListPage<EventWithDelivery>).data
    .map((e) => e.data as { subscriptionId: string; installment: number })
    .filter((d) => d.subscriptionId === subscriptionId)
    .map((d) => d.installment)
    .sort();
}

describe('a cycle that bills more than a round reads', () => {
  it('tells the merchant of every billing of its subscriptions, once', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Sweep monthly' });
    const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
    const pay = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = pay.body as PayResult & { payment: { subscriptionId: string } };
    expect(result.status).toBe('succeeded');
    const subscriptionId = result.payment.subscriptionId;

    // 301 subscriptions made elsewhere on the same account (another shop's checkout), each
    // billed at once.
    const vaultId = await vault(t.sandbox);
    await subscribeMany(t.sandbox, vaultId, planId, 301, 'shop');
    // A month later the gateway bills all 302 in one cycle. Ours, made first, is the cycle's
    // oldest billing: not among the 300 newest a round reads.
    const moved = await t.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 32 },
    });
    expect(moved.status).toBeLessThan(300);
    const newest = await gw(
      t.sandbox,
      'GET',
      '/v1/recurrences/billing?orderBy=-createdDate&page=3&limit=100',
    );
    const third = (newest.body as { items: { subscription: { id: string } }[] }).items;
    expect(third).toHaveLength(100);
    expect(third.map((b) => b.subscription.id)).not.toContain(subscriptionId);

    await recordBillingEvents(t.bff.ctx);
    expect(await paidInstallments(subscriptionId)).toEqual([1, 2]);
    // Read again, nothing new: each billing is told once.
    expect(await recordBillingEvents(t.bff.ctx)).toBe(0);
    expect(await paidInstallments(subscriptionId)).toEqual([1, 2]);
  });
});

describe('a billing paid on its retry, days after newer ones', () => {
  it('is told once its retry pays, though it is no longer among the newest', async () => {
    const planId = await createPlan(t.sandbox, {
      ...monthlyPlan,
      name: 'Retry sweep monthly',
      attempts: 2,
    });
    const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
    const pay = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const subscriptionId = (pay.body as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    // The card on file runs out of funds (51): next month's billing waits for its retry.
    const poor = await vault(t.sandbox, '4000000000009995');
    const onFile = (vaultId: string) =>
      gw(t.sandbox, 'POST', `/v1/recurrences/subscriptions/${subscriptionId}/vault`, { vaultId });
    expect((await onFile(poor)).status).toBe(200);
    await t.sandbox.call('POST', '/__sandbox/clock/advance', { token: null, body: { days: 31 } });
    await recordBillingEvents(t.bff.ctx);
    expect(await paidInstallments(subscriptionId)).toEqual([1]);

    // Meanwhile 301 subscriptions are made elsewhere, each billed at once: newer billings.
    const good = await vault(t.sandbox);
    await subscribeMany(t.sandbox, good, planId, 301, 'later');
    expect((await onFile(good)).status).toBe(200);
    // The retry, days later, pays it.
    await t.sandbox.call('POST', '/__sandbox/clock/advance', { token: null, body: { days: 3 } });
    // The gateway shows it paid now (its billings, from every page).
    const paid: number[] = [];
    for (let page = 1; page <= 10; page++) {
      const res = await gw(
        t.sandbox,
        'GET',
        `/v1/recurrences/billing?status=Paid&limit=100&page=${page}`,
      );
      const items = (res.body as { items: { installment: number; subscription: { id: string } }[] })
        .items;
      for (const b of items) if (b.subscription.id === subscriptionId) paid.push(b.installment);
      if (items.length < 100) break;
    }
    expect(paid.sort()).toEqual([1, 2]);
    // The account was swept minutes ago; the next sweep, 15 minutes on, finds it.
    await recordBillingEvents(t.bff.ctx);
    t.clock.advance(15 * 60_000);
    try {
      await recordBillingEvents(t.bff.ctx);
    } finally {
      t.clock.reset(0);
    }
    expect(await paidInstallments(subscriptionId)).toEqual([1, 2]);
  });
});

describe('a subscription checkout whose first billing failed', () => {
  it('tells the merchant of no billing of the subscription the shopper never got', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Declined first monthly' });
    const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
    const pay = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    expect(pay.body).toMatchObject({ status: 'failed', error: { code: 'declined' } });
    const detail = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    const { subscriptionId } = (detail.body as { attempts: { subscriptionId: string }[] })
      .attempts[0]!;
    expect(subscriptionId).toBeTruthy();

    // The declined attempt keeps its (canceled) subscription's id as evidence; its Denied
    // billing is no billing of the merchant's: the session may still succeed with another card.
    await recordBillingEvents(t.bff.ctx);
    const res = await t.request('GET', '/v1/events?limit=100', { headers: merchant });
    const about = (res.body as ListPage<EventWithDelivery>).data.filter(
      (e) => (e.data as { subscriptionId?: string }).subscriptionId === subscriptionId,
    );
    expect(about.map((e) => e.type)).toEqual([]);
  });
});
