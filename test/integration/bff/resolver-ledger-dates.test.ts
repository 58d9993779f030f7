import { describe, expect, it } from 'vitest';
import { MERCHANT_ORIGIN } from '../../support/bff';
import { resolverSuite } from '../../support/resolver-suite';
import { creditBody, slowBffForSuite } from '../../support/slow-bff';

/**
 * What the resolver may call proof that a payment did not happen, when the ledger it reads is
 * dated by another clock. Its own file: it moves the sandbox's business clock, which the other
 * resolver suites read by today's date.
 */
const bffs = slowBffForSuite();

const { merchant, resolve, detail, lostPayment } = resolverSuite(bffs);

describe('the resolver and the ledger it reads', () => {
  it('a sale dated by a gateway clock a month ahead of ours is found, not declared missing', async () => {
    const { slow } = bffs;
    // The sandbox's business clock moved on (a developer watching a subscription bill).
    const moved = await slow.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 30 },
    });
    expect(moved.status).toBe(200);
    const lost = await lostPayment(5_432);
    slow.clock.advance(25 * 3_600_000);
    try {
      const report = await resolve();
      expect(report.notHappened).toEqual([]);
      expect(report.resolved).toContain(lost.attemptId);
      expect((await detail(lost.sessionId)).status).toBe('succeeded');
    } finally {
      slow.clock.reset(0);
    }
  });

  it("a subscription's first billing is looked for on the gateway's day, not ours", async () => {
    const { slow } = bffs;
    // The sandbox's clock is a month ahead (the test before): so are its billings' due dates.
    const plan = await slow.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Dated monthly',
        description: 'Dated monthly',
        amount: 19.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
      },
    });
    const created = (
      await slow.request('POST', '/v1/checkout-sessions', {
        headers: merchant,
        body: { planId: plan.body as string, origin: MERCHANT_ORIGIN },
      })
    ).body as { id: string; clientSecret: string };
    // The billing search fails once after the subscription is made: the pay is pending.
    await slow.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'GET', path: '/v1/recurrences/billing', count: 1, status: 503 },
    });
    const paid = await slow.pay(
      created.clientSecret,
      await creditBody(bffs, created.clientSecret, '4000000000002701'),
    );
    expect(paid.body).toEqual({ status: 'pending' });
    // A busy account: the newest billings no longer show it; a search by due day does.
    const gateway = slow.bff.ctx.gateway;
    const search = gateway.searchBillings.bind(gateway);
    gateway.searchBillings = async (q, o) => {
      const found = await search(q, o);
      return q?.expirationDateRangeStartDate ? found : { ...found, items: [] };
    };
    try {
      await resolve();
    } finally {
      gateway.searchBillings = search;
    }
    expect((await detail(created.id)).status).toBe('succeeded');
  });
  it('a sale dated by a gateway clock 63 days ahead, looked up a day later, is found', async () => {
    // The window reaches 62 days past today, not past the call: a day of waiting adds a day.
    const { slow } = bffs;
    // From the sandbox's own today (the tests before may have moved it).
    await slow.sandbox.call('POST', '/__sandbox/clock/reset', { token: null });
    const moved = await slow.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 63 },
    });
    expect(moved.status).toBe(200);
    const lost = await lostPayment(5_433);
    slow.clock.advance(25 * 3_600_000);
    try {
      const report = await resolve();
      expect(report.notHappened).toEqual([]);
      expect(report.resolved).toContain(lost.attemptId);
    } finally {
      slow.clock.reset(0);
      await slow.sandbox.call('POST', '/__sandbox/clock/reset', { token: null });
    }
  });
});
