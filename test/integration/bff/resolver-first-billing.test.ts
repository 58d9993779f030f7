import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import type { BffDb, BffKysely } from '../../../server/bff/db';
import { pruneDueDayReads } from '../../../server/bff/payments/first-billing-search';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import type { Billing } from '../../../server/gateway/schemas';
import { openDb } from '../../../server/lib/db';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_SECRET, startBff, testDbUrl, type TestBff } from '../../support/bff';
import { payPlanPending } from '../../support/plan-pay';
import { failWrites } from '../../support/store-failures';
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
 * subscription was made billed `others` others before it (1,000 by default: its first billing
 * is on page 11), or only them (`mine: false`).
 */
async function busyBillingSearch(on: TestBff = t, day = { others: 1_000, mine: true }) {
  const gateway = on.bff.ctx.gateway;
  const search = gateway.searchBillings.bind(gateway);
  const [real] = (await search({ orderBy: '-createdDate', page: 1, limit: 100 })).items;
  const other = (i: number): Billing => ({
    ...real!,
    id: `other-${i}`,
    subscription: { ...real!.subscription, id: `other-sub-${i}`, orderNumber: `o${i}` },
  });
  const total = day.others + (day.mine ? 1 : 0);
  const pagesAsked: number[] = [];
  gateway.searchBillings = (q = {}) => {
    const page = Number(q.page ?? 1);
    if (!q.expirationDateRangeStartDate) {
      return Promise.resolve({ items: [], total: 0, page, limit: 100 });
    }
    pagesAsked.push(page);
    const start = (page - 1) * 100;
    const items = Array.from({ length: Math.max(0, Math.min(100, total - start)) }, (_, i) =>
      start + i < day.others ? other(start + i) : real!,
    );
    return Promise.resolve({ items, total, page, limit: 100 });
  };
  return { pagesAsked, restore: () => (gateway.searchBillings = search) };
}

/** The rows of `bff_due_day_reads`: where each due-day search stands. */
async function positions(db: BffKysely) {
  const rows = await db
    .selectFrom('bff_due_day_reads')
    .select(['subscription_id', 'pages', 'seen'])
    .execute();
  return rows.map((r) => ({ ...r, pages: Number(r.pages), seen: Number(r.seen) }));
}

/** The subscription id the attempt of session `sessionId` keeps. */
async function subscriptionOf(db: BffKysely, sessionId: string) {
  const row = await db
    .selectFrom('payment_attempts')
    .select('subscription_id')
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  return row.subscription_id;
}

/** One resolver round of `on`, every unknown attempt due for a look-up. */
const roundOf = (on: TestBff) => () =>
  resolveUnknownAttempts(on.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
  });

describe('a first billing beyond the pages one round reads of its due day', () => {
  it('is found by reading on in later rounds, however long that takes', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Busy day monthly' });
    const { id: sessionId } = await payPlanPending(t, planId, '4000000000002701');
    const busy = await busyBillingSearch();
    const round = roundOf(t);
    try {
      // The first round reads the day's first 10 pages: not there yet.
      t.clock.advance(11 * 60_000);
      const first = await round();
      expect(first.resolved).toEqual([]);
      expect(first.stillUnknown).toHaveLength(1);
      expect(Math.max(...busy.pagesAsked)).toBe(10);
      // Over a week later: the attempt whose subscription exists is still looked up, and the
      // search reads on from page 11, where its billing is.
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

describe('where a due-day search stands', () => {
  it('is kept in the store: a BFF started again on it reads on from the next page', async () => {
    const store = await openDb<BffDb>({ url: await testDbUrl(undefined) });
    const config = { payRateLimitPerMinute: 10_000 };
    const before = await startBff({ sandbox: t.sandbox, deps: { db: store.db }, config });
    let after: TestBff | undefined;
    try {
      const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Busy day restart' });
      const { id: sessionId } = await payPlanPending(before, planId, '4000000000002701');
      const busy = await busyBillingSearch(before);
      before.clock.advance(11 * 60_000);
      const first = await roundOf(before)();
      busy.restore();
      expect(first.stillUnknown).toHaveLength(1);
      expect(busy.pagesAsked).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await positions(store.db)).toEqual([
        { subscription_id: await subscriptionOf(store.db, sessionId), pages: 10, seen: 1_000 },
      ]);

      // A restart (or another instance taking the rounds over): a new BFF on the same store.
      await before.close();
      after = await startBff({ sandbox: t.sandbox, deps: { db: store.db }, config });
      const resumed = await busyBillingSearch(after);
      after.clock.advance(12 * 60_000);
      const later = await roundOf(after)();
      resumed.restore();
      expect(resumed.pagesAsked).toEqual([11]);
      expect(later.resolved).toEqual(first.stillUnknown);
      // Found: the search is over, and so is its row.
      expect(await positions(store.db)).toEqual([]);
      const detail = await after.request('GET', `/v1/checkout-sessions/${sessionId}`, {
        headers: merchant,
      });
      expect(detail.body).toMatchObject({ status: 'succeeded' });
    } finally {
      await (after ?? before).close();
      await store.close();
    }
  });
});

describe('where a due-day search stands, written with the round', () => {
  it('is not kept when what the round records about the attempt fails to commit', async () => {
    // A BFF of its own: the attempt it leaves unknown is no other test's.
    const own = await startBff({ sandbox: t.sandbox, config: { payRateLimitPerMinute: 10_000 } });
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Busy day store down' });
    const { id: sessionId } = await payPlanPending(own, planId, '4000000000002701');
    const busy = await busyBillingSearch(own, { others: 1_500, mine: false });
    const db = own.bff.ctx.db;
    // The attempt's "still unknown" (its updated_at moved on) cannot be written.
    const restoreWrites = await failWrites(
      db,
      'payment_attempts',
      'update',
      'new.updated_at <> old.updated_at',
    );
    try {
      own.clock.advance(11 * 60_000);
      await expect(roundOf(own)()).rejects.toThrow(/injected failure/);
      expect(busy.pagesAsked).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await positions(db)).toEqual([]);
      // The store back: the same pages again, and this time where they stopped is kept.
      await restoreWrites();
      busy.pagesAsked.length = 0;
      expect((await roundOf(own)()).stillUnknown).toHaveLength(1);
      expect(busy.pagesAsked).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await positions(db)).toEqual([
        { subscription_id: await subscriptionOf(db, sessionId), pages: 10, seen: 1_000 },
      ]);
    } finally {
      await restoreWrites();
      busy.restore();
      await own.close();
    }
  });
});

describe('a due-day search that ends without the first billing', () => {
  it('forgets where it stood: the next round reads the day again from page 1', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Busy day absent' });
    const { id: sessionId } = await payPlanPending(t, planId, '4000000000002701');
    // 1,500 billings that day, none of them this subscription's (yet).
    const busy = await busyBillingSearch(t, { others: 1_500, mine: false });
    const db = t.bff.ctx.db;
    const round = roundOf(t);
    try {
      t.clock.advance(11 * 60_000);
      expect((await round()).stillUnknown).toHaveLength(1);
      expect(busy.pagesAsked).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const subscriptionId = await subscriptionOf(db, sessionId);
      const standing = { subscription_id: subscriptionId, pages: 10, seen: 1_000 };
      expect(await positions(db)).toEqual([standing]);
      // The maintenance round's prune leaves it (its attempt is still unknown) and takes the
      // row of a subscription whose attempt settled another way.
      await db
        .insertInto('bff_due_day_reads')
        .values({ subscription_id: 'settled-elsewhere', pages: 3, seen: 300, updated_at: '' })
        .execute();
      await pruneDueDayReads(db);
      expect(await positions(db)).toEqual([standing]);

      // Pages 11 to 15 end the day without it: proven not there now, and nothing kept.
      busy.pagesAsked.length = 0;
      expect((await round()).stillUnknown).toHaveLength(1);
      expect(busy.pagesAsked).toEqual([11, 12, 13, 14, 15]);
      expect(await positions(db)).toEqual([]);
      // A billing that left the listing may have moved it up past the pages read: the day is
      // read again from its start.
      busy.pagesAsked.length = 0;
      await round();
      expect(busy.pagesAsked).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await positions(db)).toEqual([standing]);
    } finally {
      busy.restore();
      t.clock.reset(0);
    }
  });
});
