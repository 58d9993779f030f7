import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BffDb, BffKysely } from '../../../server/bff/db';
import { prunePlanProofs } from '../../../server/bff/payments/plan-proof';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { openDb } from '../../../server/lib/db';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { MERCHANT_SECRET, startBff, testDbUrl, type TestBff } from '../../support/bff';
import { busyPlan } from '../../support/busy-plan';
import { payPlanPending } from '../../support/plan-pay';
import { createPlan, monthlyPlan } from '../sandbox/recurrence/helpers';

// The proof before a subscription attempt with no answer is declared not to have happened
// reads every subscription of its plan, 50 pages a round (payments/plan-proof.ts). On a plan
// bigger than that, where it stands must outlive the process: a restart, or another instance
// taking the maintenance lease, reads on rather than from page 1 again.
let t: TestBff;
beforeAll(async () => {
  t = await startBff();
});
afterAll(() => t.close());

const DAY_MS = 24 * 3_600_000;

/** One resolver round of `on` reading two pages of a plan a round (50 by default). */
const roundOf = (on: TestBff) =>
  resolveUnknownAttempts(on.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
    proofPages: 2,
  });

/** The plans whose proofs are under way, and the page each stands at. */
async function proofs(db: BffKysely) {
  const rows = await db.selectFrom('bff_plan_proofs').select(['plan_id', 'pages']).execute();
  return rows.map((r) => ({ plan_id: r.plan_id, pages: Number(r.pages) }));
}

describe("where a plan's proof stands", () => {
  it('is kept in the store: a BFF started again on it reads on from the next page', async () => {
    const store = await openDb<BffDb>({ url: await testDbUrl(undefined) });
    const before = await startBff({ sandbox: t.sandbox, deps: { db: store.db } });
    let after: TestBff | undefined;
    try {
      const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Proof restart' });
      // The subscription call fails with a 500: its outcome is unknown (it was not made).
      const { id: sessionId } = await payPlanPending(before, planId, '4000000000002701', {
        method: 'POST',
        path: '/v1/recurrences/subscriptions',
        status: 500,
      });
      const busy = busyPlan(before, planId, 350);
      // A day later, the first round reads pages 1-2 of 4: nothing proven yet.
      before.clock.advance(DAY_MS + 60_000);
      const first = await roundOf(before);
      busy.restore();
      expect(first).toMatchObject({ resolved: [], notHappened: [] });
      expect(first.stillUnknown).toHaveLength(1);
      expect(busy.pagesAsked).toEqual([1, 2]);
      expect(await proofs(store.db)).toEqual([{ plan_id: planId, pages: 2 }]);
      // The maintenance round's prune keeps it (its attempt is still unknown) and drops the
      // proof of a plan with no attempt left unknown.
      await store.db
        .insertInto('bff_plan_proofs')
        .values({
          plan_id: 'settled-elsewhere',
          wanted_json: '[]',
          found_json: '{}',
          pages: 3,
          seen: 300,
          spans_hash: null,
          read_at: new Date().toISOString(),
        })
        .execute();
      await prunePlanProofs(store.db);
      expect(await proofs(store.db)).toEqual([{ plan_id: planId, pages: 2 }]);

      // A restart (or another instance taking the rounds over): a new BFF on the same store.
      await before.close();
      after = await startBff({ sandbox: t.sandbox, deps: { db: store.db } });
      const resumed = busyPlan(after, planId, 350);
      // Within ten minutes of the last pages, the plan is not read: the wait outlives it too.
      after.clock.advance(DAY_MS + 5 * 60_000);
      expect((await roundOf(after)).stillUnknown).toEqual(first.stillUnknown);
      expect(resumed.pagesAsked).toEqual([]);
      // Then pages 3-4 end the listing: the attempt's subscription is not there, it did not
      // happen (read from page 1 again, it stayed unknown as long as restarts came often).
      after.clock.advance(7 * 60_000);
      const later = await roundOf(after);
      resumed.restore();
      expect(resumed.pagesAsked).toEqual([3, 4]);
      expect(later).toMatchObject({ resolved: [], notHappened: first.stillUnknown });
      expect(await proofs(store.db)).toEqual([]);
      const detail = await after.request('GET', `/v1/checkout-sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
      });
      // Its time ran out meanwhile: it ends rather than take payments again.
      expect(detail.body).toMatchObject({
        status: 'expired',
        attempts: [{ status: 'failed', failureCode: 'try_again_later' }],
      });
    } finally {
      await (after ?? before).close();
      await store.close();
    }
  });
});
