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
import type { MoneyWorld } from './money-world';

/**
 * Subscription checkouts in the money model: sessions of the run's plan (test/support/
 * money-world.ts `planId`), paid by credit with a card the first billing approves, declines
 * or leaves waiting for a retry, while the gateway fails the subscription call or the billing
 * read. Their invariants are in money-invariants.ts `checkPlans`.
 */

class CreatePlanSession implements Cmd {
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const res = await w.to().request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { origin: MERCHANT_ORIGIN, planId: w.planId },
    });
    noBadStatus('create plan session', res, [201]);
    const s = res.body as { id: string; clientSecret: string; amount: number };
    w.planSessions.push({ id: s.id, secret: s.clientSecret, amount: s.amount });
    await checkInvariants(w, false);
  }
  toString = () => 'CreatePlanSession()';
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
  { weight: 1, arbitrary: fc.constant(new CreatePlanSession()) },
  {
    weight: 4,
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
];
