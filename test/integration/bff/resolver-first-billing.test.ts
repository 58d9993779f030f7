import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import type { Billing } from '../../../server/gateway/schemas';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { payPlanPending } from '../../support/plan-pay';
import { createPlan, monthlyPlan } from '../sandbox/recurrence/helpers';

// A subscription checkout whose first billing could not be read at pay: the resolver finds
// its subscription, then the first billing among the billings due the day it was made.
let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

/**
 * The billing searches as on a busy account: the newest billings are others', and the day the
 * subscription was made billed 1,000 others before it (its first billing is on page 11).
 */
async function busyBillingSearch() {
  const gateway = t.bff.ctx.gateway;
  const search = gateway.searchBillings.bind(gateway);
  const [real] = (await search({ orderBy: '-createdDate', page: 1, limit: 100 })).items;
  const other = (i: number): Billing => ({
    ...real!,
    id: `other-${i}`,
    subscription: { ...real!.subscription, id: `other-sub-${i}`, orderNumber: `o${i}` },
  });
  const pagesAsked: number[] = [];
  gateway.searchBillings = (q = {}) => {
    const page = Number(q.page ?? 1);
    if (!q.expirationDateRangeStartDate) {
      return Promise.resolve({ items: [], total: 0, page, limit: 100 });
    }
    pagesAsked.push(page);
    const items =
      page <= 10
        ? Array.from({ length: 100 }, (_, i) => other(page * 100 + i))
        : page === 11
          ? [real!]
          : [];
    return Promise.resolve({ items, total: 1_001, page, limit: 100 });
  };
  return { pagesAsked, restore: () => (gateway.searchBillings = search) };
}

describe('a first billing beyond the pages one round reads of its due day', () => {
  it('is found by reading on in later rounds, however long that takes', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Busy day monthly' });
    const { id: sessionId } = await payPlanPending(t, planId, '4000000000002701');
    const busy = await busyBillingSearch();
    const round = () =>
      resolveUnknownAttempts(t.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
      });
    try {
      // The first round reads the day's first 10 pages: not there yet.
      t.clock.advance(11 * 60_000);
      const first = await round();
      expect(first.resolved).toEqual([]);
      expect(first.stillUnknown).toHaveLength(1);
      expect(Math.max(...busy.pagesAsked)).toBe(10);
      // Over a week later (the resolver's lookback): the attempt whose subscription exists is
      // still looked up, and the search reads on from page 11, where its billing is.
      t.clock.advance(8 * 24 * 3_600_000);
      const later = await round();
      expect(later.resolved).toEqual(first.stillUnknown);
      expect(busy.pagesAsked.slice(10)).toEqual([11]);
    } finally {
      busy.restore();
      t.clock.reset(0);
    }
    const detail = await t.request('GET', `/v1/checkout-sessions/${sessionId}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'succeeded' });
    const events = await t.request('GET', '/v1/events?limit=100', { headers: merchant });
    const told = (events.body as ListPage<EventWithDelivery>).data
      // A session's own events carry it whole (its id); the others name it.
      .filter((e) => {
        const data = e.data as { id?: string; sessionId?: string };
        return (data.sessionId ?? data.id) === sessionId;
      })
      .map((e) => e.type)
      .sort();
    expect(told).toEqual(['billing.paid', 'checkout_session.succeeded', 'subscription.created']);
  });
});
