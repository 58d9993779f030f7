import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { PayResult } from '../../server/bff/checkout-api';
import { encryptWithKey, MERCHANT_ORIGIN } from './bff';
import {
  CARDS,
  keyUsed,
  merchant,
  noBadStatus,
  pick,
  pickOf,
  type Cmd,
  type Model,
} from './money-commands';
import { checkInvariants } from './money-invariants';
import { lifeCommands, planIdOf, readPlan, type PlanName } from './money-plan-life';
import { reaisToCents } from '../../server/gateway/money';
import type { MoneyWorld } from './money-world';

/**
 * Subscription checkouts in the money model: sessions of the run's plans (test/support/
 * money-world.ts `planId`, `trialPlanId`), paid by credit with a card the first billing approves, declines
 * or leaves waiting for a retry, while the gateway fails the subscription call or the billing
 * read. Their invariants are in money-invariants.ts `checkPlans`.
 */

class CreatePlanSession implements Cmd {
  constructor(
    readonly plan: PlanName = 'monthly',
    readonly expiresInSeconds = 1_800,
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const plan = await readPlan(w, planIdOf(w, this.plan));
    const res = await w.to().request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: {
        origin: MERCHANT_ORIGIN,
        planId: planIdOf(w, this.plan),
        expiresInSeconds: this.expiresInSeconds,
      },
    });
    // A plan the merchant deactivated takes no new checkout; one Active, at its amount now.
    if (plan.status !== 'Active') {
      noBadStatus('create session of an inactive plan', res, [400]);
      expect((res.body as { error: { param: string } }).error.param).toBe('planId');
    } else {
      noBadStatus('create plan session', res, [201]);
      const s = res.body as { id: string; clientSecret: string; amount: number };
      expect(s.amount).toBe(reaisToCents(plan.amount));
      w.planSessions.push({ id: s.id, secret: s.clientSecret, amount: s.amount });
    }
    await checkInvariants(w, false);
  }
  toString = () => `CreatePlanSession(${this.plan}, ${this.expiresInSeconds} s)`;
}

type PlanFault = 'none' | 'subscribe-500' | 'subscribe-late' | 'billing-read-down';

class PayPlan implements Cmd {
  constructor(
    readonly pick: number,
    readonly card: 'approve' | 'decline' | 'insufficient',
    readonly fault: PlanFault,
  ) {}
  check = () => true;
  async run(m: Model, w: MoneyWorld) {
    const s = pickOf(w.planSessions, this.pick);
    if (s) await this.act(w, s, m);
    await checkInvariants(w, false);
  }
  private async act(w: MoneyWorld, s: MoneyWorld['planSessions'][number], m: Model) {
    const number = CARDS[this.card];
    const encryptedCard = encryptWithKey(w.cardKey, number);
    w.secrets.add(number).add(encryptedCard);
    const body = await w.t.payBody(s.secret, number, { method: 'credit', encryptedCard });
    const before = await w.attemptIds(s.id);
    // The plan as it is now: changed since the session was made, the pay expires the session.
    const row = (await w.sessionRows()).find((x) => x.id === s.id)!;
    const plan = await readPlan(w, row.plan_id!);
    const changed = plan.status !== 'Active' || reaisToCents(plan.amount) !== s.amount;
    // Open in the store (or past its time: expired either way, no attempt).
    const wasOpen = row.status === 'open';
    if (this.fault === 'subscribe-500') await w.fault('/v1/recurrences/subscriptions', '500');
    if (this.fault === 'subscribe-late') await w.fault('/v1/recurrences/subscriptions', 'latency');
    if (this.fault === 'billing-read-down') {
      const res = await w.sandbox.call('POST', '/__sandbox/faults', {
        token: null,
        body: { method: 'GET', path: '/v1/recurrences/billing', status: 503, count: 1 },
      });
      expect(res.status).toBe(201);
    }
    const key = `plan-${randomUUID()}`;
    const res = await w.to().pay(s.secret, body, key);
    await w.clearFaults();
    noBadStatus('plan pay', res, [200, 409]);
    keyUsed(w, m, s, key, body, res);
    const fresh = (await w.attemptIds(s.id)).filter((id) => !before.includes(id));
    if (fresh.length > 1) throw new Error(`one plan pay made ${fresh.length} attempts`);
    if (wasOpen && changed) {
      expect(fresh).toEqual([]);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'session_expired' } });
    }
    if (res.status === 200 && fresh[0]) {
      w.answers.push({
        sessionId: s.id,
        attemptId: fresh[0],
        step: 'pay',
        result: res.body as PayResult,
      });
    }
  }
  toString = () => `PayPlan(#${this.pick}, ${this.card}, fault ${this.fault})`;
}

export const planCommands: fc.WeightedArbitrary<Cmd>[] = [
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom<PlanName>('monthly', 'trial'), fc.constantFrom(1_800, 86_400))
      .map(([p, e]) => new CreatePlanSession(p, e)),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        pick,
        fc.constantFrom('approve' as const, 'decline' as const, 'insufficient' as const),
        fc.constantFrom<PlanFault>(
          'none',
          'none',
          'subscribe-500',
          'subscribe-late',
          'billing-read-down',
        ),
      )
      .map(([p, c, f]) => new PayPlan(p, c, f)),
  },
  ...lifeCommands,
];
