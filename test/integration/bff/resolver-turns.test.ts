import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownAttempts, type ResolveOptions } from '../../../server/bff/payments/resolver';
import { markLookedUp } from '../../../server/bff/payments/subscription-turns';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { startBff, type TestBff } from '../../support/bff';
import { busyPlan } from '../../support/busy-plan';
import { payPlanPending } from '../../support/plan-pay';
import { seedSessionWithAttempt } from '../../support/store-rows';
import { createPlan, monthlyPlan } from '../sandbox/recurrence/helpers';

/**
 * Rounds take unknown subscription attempts by turns (payments/subscription-turns.ts): the
 * looked up longest ago first, and a proof of a plan read over several rounds, 10 minutes
 * apart (payments/plan-proof.ts), still decides every attempt it began for in the round that
 * ends it, whichever turn that round takes.
 */
let t: TestBff;
beforeAll(async () => {
  t = await startBff();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const MIN = 60_000;

/** A plan session whose subscription call failed with a 500: unknown, and never made. */
async function notMade(on: TestBff, planId: string): Promise<string> {
  const { id } = await payPlanPending(on, planId, '4000000000002701', {
    method: 'POST',
    path: '/v1/recurrences/subscriptions',
    status: 500,
  });
  const row = await on.bff.ctx.db
    .selectFrom('payment_attempts')
    .select('id')
    .where('session_id', '=', id)
    .executeTakeFirstOrThrow();
  return row.id;
}

function round(on: TestBff, opts: Partial<ResolveOptions> = {}) {
  return resolveUnknownAttempts(on.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
    // 150 subscriptions in the plan: a proof reads 2 pages, 10 minutes apart.
    proofPages: 1,
    ...opts,
  });
}

describe('a big plan whose proof begins in one turn and ends in another', () => {
  it('declares every never-made attempt it began for (a turn of 1, rounds 11 minutes apart)', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Turns big plan' });
    for (let i = 0; i < 3; i++) await notMade(t, planId);
    const { restore } = busyPlan(t, planId, 150);
    try {
      // Rounds within the first day (none due yet) give each its turn.
      for (let i = 0; i < 3; i++) {
        t.clock.advance(MIN);
        await round(t, { subscriptionTurn: 1 });
      }
      t.clock.advance(DAY);
      const notHappened: string[] = [];
      for (let i = 0; i < 12; i++) {
        t.clock.advance(11 * MIN);
        notHappened.push(...(await round(t, { subscriptionTurn: 1 })).notHappened);
      }
      expect(new Set(notHappened).size).toBe(3);
    } finally {
      restore();
    }
  });

  it('declares 300 never-made attempts within 3 hours of 1-minute rounds (default turns)', async () => {
    const own = await startBff();
    try {
      const planId = await createPlan(own.sandbox, { ...monthlyPlan, name: 'Turns bigger plan' });
      const db = own.bff.ctx.db;
      const base = own.clock.now().getTime();
      for (let i = 0; i < 300; i++) {
        const id = `cs_turns_${String(i).padStart(3, '0')}`;
        const at = new Date(base - 10 * MIN + i).toISOString();
        await seedSessionWithAttempt(db, id, { created_at: at, updated_at: at });
        await db
          .updateTable('checkout_sessions')
          .set({
            status: 'pending',
            plan_id: planId,
            expires_at: new Date(base + 30 * DAY).toISOString(),
          })
          .where('id', '=', id)
          .execute();
      }
      const { restore } = busyPlan(own, planId, 150);
      try {
        // Rounds before any is due: enough to look each up once.
        for (let i = 0; i < 6; i++) {
          own.clock.advance(MIN);
          await round(own);
        }
        own.clock.advance(DAY);
        let declared = 0;
        for (let i = 0; i < 180 && declared < 300; i++) {
          own.clock.advance(MIN);
          declared += (await round(own)).notHappened.length;
        }
        expect(declared).toBe(300);
      } finally {
        restore();
      }
    } finally {
      await own.close();
    }
  }, 60_000);
});

describe('the turns of attempts looked up before', () => {
  it('come longest ago first: one looked up before 250 stuck ones settles in 4 rounds', async () => {
    const own = await startBff();
    try {
      const db = own.bff.ctx.db;
      const planId = await createPlan(own.sandbox, { ...monthlyPlan, name: 'Turns readable' });
      const readable = await notMade(own, planId);
      // Looked up once while it could not be decided yet (not unknown for a day).
      own.clock.advance(MIN);
      expect((await round(own)).stillUnknown).toEqual([readable]);
      // Then 250 attempts of a plan the gateway does not have, looked up after it.
      own.clock.advance(MIN);
      const made = own.clock.now().toISOString();
      const stuck: string[] = [];
      for (let i = 0; i < 250; i++) {
        const id = `cs_stuck_${String(i).padStart(3, '0')}`;
        await seedSessionWithAttempt(db, id, { created_at: made, updated_at: made });
        await db
          .updateTable('checkout_sessions')
          .set({
            status: 'pending',
            plan_id: 'plan-that-is-gone',
            expires_at: new Date(Date.parse(made) + 30 * DAY).toISOString(),
          })
          .where('id', '=', id)
          .execute();
        stuck.push(`pa_${id}`);
      }
      own.clock.advance(MIN);
      await markLookedUp(db, stuck, own.clock.now());
      own.clock.advance(DAY);
      const settled: string[] = [];
      for (let i = 0; i < Math.ceil(251 / 100) + 1 && !settled.includes(readable); i++) {
        own.clock.advance(MIN);
        settled.push(...(await round(own)).notHappened);
      }
      expect(settled).toEqual([readable]);
    } finally {
      await own.close();
    }
  });
});
