import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, type TestBff } from '../../support/bff';
import { LATE_ANSWER_MS, payTimingOut, startSlowBff } from '../../support/slow-bff';
import { createPlan, gw, monthlyPlan, subscribeMany, vault } from '../sandbox/recurrence/helpers';

// The proof before a subscription attempt with no answer is declared not to have happened:
// every subscription of its plan is read (payments/resolver.ts `planListing`). A BFF whose
// gateway calls give up after 400 ms, beside a helper BFF (support/slow-bff.ts).
let slow: TestBff;
let helper: TestBff;
beforeAll(async () => {
  ({ slow, helper } = await startSlowBff());
});
afterAll(async () => {
  await slow.close();
  await helper.close();
});

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
interface Detail {
  status: string;
  attempts: { id: string; subscriptionId: string | null }[];
}
const detail = async (id: string) =>
  (await slow.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as Detail;

describe('a timed-out subscription behind many newer ones', () => {
  /** A plan session whose subscription the gateway makes after the BFF gave up waiting. */
  async function timedOutSubscription(planId: string, number: string) {
    const created = await slow.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { planId, origin: MERCHANT_ORIGIN },
    });
    expect(created.status).toBe(201);
    const s = created.body as { id: string; clientSecret: string };
    await payTimingOut({ slow, helper }, s.clientSecret, number, '/v1/recurrences/subscriptions');
    await new Promise((r) => setTimeout(r, LATE_ANSWER_MS));
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    const { gateway_reference } = await slow.bff.ctx.db
      .selectFrom('payment_attempts')
      .select('gateway_reference')
      .where('id', '=', attemptId)
      .executeTakeFirstOrThrow();
    return { sessionId: s.id, attemptId, orderNumber: gateway_reference! };
  }

  /**
   * Counts the pages of plan listings read, and leaves the order numbers in `hidden` out of
   * the newest subscriptions and billings (as if 300 newer ones had been made); a billing search
   * by due day still finds them.
   */
  function watchSearches() {
    const gateway = slow.bff.ctx.gateway;
    const searchSubscriptions = gateway.searchSubscriptions.bind(gateway);
    const searchBillings = gateway.searchBillings.bind(gateway);
    const watch = { pagesRead: 0, hidden: new Set<string>(), restore: () => {} };
    gateway.searchSubscriptions = async (q, o) => {
      if (q?.planName) watch.pagesRead++;
      const found = await searchSubscriptions(q, o);
      if (q?.planName) return found;
      return { ...found, items: found.items.filter((x) => !watch.hidden.has(x.orderNumber)) };
    };
    gateway.searchBillings = async (q, o) => {
      const found = await searchBillings(q, o);
      // A search of one day's billings is not crowded out by newer ones.
      if (q?.expirationDateRangeStartDate) return found;
      const items = found.items.filter((b) => !watch.hidden.has(b.subscription.orderNumber));
      return { ...found, items };
    };
    watch.restore = () => {
      gateway.searchSubscriptions = searchSubscriptions;
      gateway.searchBillings = searchBillings;
    };
    return watch;
  }
  /** A resolver round that reads two pages of a plan, where the default is 50. */
  const round = () =>
    resolveUnknownAttempts(slow.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
      proofPages: 2,
    });
  /** Renames a plan (a plan in use may change its name). */
  async function rename(planId: string, name: string) {
    const plan = (await gw(slow.sandbox, 'GET', `/v1/recurrences/plans/${planId}`)).body as Record<
      string,
      unknown
    >;
    const renamed = await gw(slow.sandbox, 'POST', `/v1/recurrences/plans/${planId}`, {
      merchantId: plan.merchantId,
      name,
      description: plan.description,
      amount: plan.amount,
      planType: plan.planType,
      paymentMethod: plan.paymentMethod,
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
  }

  it('is looked for among every subscription of its plan before it is declared not to have happened', async () => {
    const planId = await createPlan(slow.sandbox, { ...monthlyPlan, name: 'Resolver monthly' });
    const number = '4000000000002701';
    const first = await timedOutSubscription(planId, number);

    // 301 newer subscriptions of the same plan, each with its first billing: a round reads the
    // newest 300 of each, so it no longer sees this one.
    const vaultId = await vault(slow.sandbox, number);
    await subscribeMany(slow.sandbox, vaultId, planId, 301, 'other');
    // The merchant renames the plan meanwhile (a plan in use may change its name): the
    // checkout's copy of it no longer finds its subscriptions.
    await rename(planId, 'Members club');

    const watch = watchSearches();
    const sessions = [first.sessionId];
    try {
      // A day later. Two pages of the plan's subscriptions prove nothing: it stays unknown (it
      // used to be declared not to have happened, a shopper told to pay again beside a live
      // subscription), and the next rounds within ten minutes do not read the plan.
      slow.clock.advance(24 * 3_600_000 + 60_000);
      expect(await round()).toMatchObject({
        resolved: [],
        notHappened: [],
        stillUnknown: [first.attemptId],
      });
      expect(watch.pagesRead).toBe(2);
      expect((await round()).stillUnknown).toEqual([first.attemptId]);
      expect(watch.pagesRead).toBe(2);
      expect((await detail(first.sessionId)).status).toBe('pending');

      // Another shopper's subscription to the plan times out too, after the proof began: it is
      // the plan's newest (page 1, read already), and out of the newest 300 a day later.
      const second = await timedOutSubscription(planId, number);
      watch.hidden.add(second.orderNumber);
      sessions.push(second.sessionId);

      // A day later, the proof reads on from page 3 (it used to begin again at page 1, and a
      // plan bigger than a round's pages was never proven) and finds the first one on page 4.
      // It began before the second one's call: not finding that one there proves nothing.
      slow.clock.advance(24 * 3_600_000 + 60_000);
      expect(await round()).toMatchObject({
        resolved: [first.attemptId],
        notHappened: [],
        stillUnknown: [second.attemptId],
      });
      expect(watch.pagesRead).toBe(4);
      // The next round proves the second from page 1 (where it stops, every one wanted found).
      expect(await round()).toMatchObject({ resolved: [second.attemptId], notHappened: [] });
      expect(watch.pagesRead).toBe(5);
    } finally {
      watch.restore();
      slow.clock.reset(0);
    }
    expect(sessions).toHaveLength(2);
    for (const sessionId of sessions) {
      const d = (
        await slow.request('GET', `/v1/checkout-sessions/${sessionId}`, { headers: merchant })
      ).body as Detail & { attempts: { subscriptionId: string | null }[] };
      expect(d.status).toBe('succeeded');
      const sub = await gw(
        slow.sandbox,
        'GET',
        `/v1/recurrences/subscriptions/${d.attempts[0]!.subscriptionId}`,
      );
      expect(sub.body).toMatchObject({ status: 'Active', plan: { id: planId } });
    }
  });
  it('begins its proof again when a plan it spans is renamed between rounds', async () => {
    // "Zeta circle": the attempt's subscription and 149 newer ones; "Zeta circle plus", whose
    // name holds the first's, 100 newer still: the name search lists 250, the attempt's last.
    const planId = await createPlan(slow.sandbox, { ...monthlyPlan, name: 'Zeta circle' });
    const number = '4000000000002701';
    const lost = await timedOutSubscription(planId, number);
    const vaultId = await vault(slow.sandbox, number);
    await subscribeMany(slow.sandbox, vaultId, planId, 149, 'zc');
    const plus = await createPlan(slow.sandbox, { ...monthlyPlan, name: 'Zeta circle plus' });
    await subscribeMany(slow.sandbox, vaultId, plus, 100, 'zp');
    const watch = watchSearches();
    watch.hidden.add(lost.orderNumber);
    try {
      slow.clock.advance(24 * 3_600_000 + 60_000);
      expect((await round()).stillUnknown).toEqual([lost.attemptId]);
      expect(watch.pagesRead).toBe(2);
      // The other plan is renamed: its 100 leave the listing and the attempt's subscription
      // moves up to page 2, read already. Reading on from page 3 would find an empty page,
      // call the listing read whole and declare the attempt not to have happened.
      await rename(plus, 'Omega pass');
      slow.clock.advance(10 * 60_000);
      expect(await round()).toMatchObject({ resolved: [lost.attemptId], notHappened: [] });
      expect(watch.pagesRead).toBe(4);
    } finally {
      watch.restore();
      slow.clock.reset(0);
    }
    expect((await detail(lost.sessionId)).status).toBe('succeeded');
  });
});
