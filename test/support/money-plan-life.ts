import fc from 'fast-check';
import { expect } from 'vitest';
import { merchant, noBadStatus, pick, pickOf, type Cmd, type Model } from './money-commands';
import { checkInvariants } from './money-invariants';
import { merchantCancels } from './money-billings';
import type { MoneyWorld } from './money-world';

/**
 * A subscription's life after its checkout, in the money model: the merchant changes the plan
 * (its amount, or deactivates it) at the gateway, cancels a subscription through the BFF's
 * merchant API, and business time runs over billing dates, the card approving, waiting on
 * funds (retries) or declining. Invariants: money-billings.ts.
 */

export type PlanName = 'monthly' | 'trial';

export const planIdOf = (w: MoneyWorld, plan: PlanName) =>
  plan === 'monthly' ? w.planId : w.trialPlanId;

interface GatewayPlan {
  merchantId: string;
  name: string;
  description: string;
  amount: number;
  planType: string;
  trialDays?: number;
  attempts?: number;
  status: string;
}

/** The plan as the gateway has it now. */
export async function readPlan(w: MoneyWorld, id: string): Promise<GatewayPlan> {
  const res = await w.sandbox.call('GET', `/v1/recurrences/plans/${id}`);
  if (res.status !== 200) throw new Error(`plan read: ${res.status}`);
  return res.body as GatewayPlan;
}

async function setPlanStatus(w: MoneyWorld, id: string, status: 'Active' | 'Inactive') {
  const res = await w.sandbox.call('POST', `/v1/recurrences/plans/${id}/status`, {
    body: { status },
  });
  if (res.status !== 200) throw new Error(`plan status: ${res.status}`);
}

/**
 * The merchant, at the gateway (the BFF has no plan API): the amount changed by R$ 10 (the
 * plan set Inactive first, as the spec wants, then Active again; refused while a subscription
 * uses it), or the plan deactivated, or reactivated.
 */
class ChangePlan implements Cmd {
  constructor(
    readonly plan: PlanName,
    readonly kind: 'amount' | 'deactivate' | 'reactivate',
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const id = planIdOf(w, this.plan);
    if (this.kind === 'amount') {
      await setPlanStatus(w, id, 'Inactive');
      const p = await readPlan(w, id);
      const res = await w.sandbox.call('POST', `/v1/recurrences/plans/${id}`, {
        body: {
          merchantId: p.merchantId,
          name: p.name,
          description: p.description,
          amount: Math.round(p.amount * 100 + 1_000) / 100,
          planType: p.planType,
          paymentMethod: 'CreditCard',
          attempts: p.attempts,
          ...(p.trialDays ? { trialDays: p.trialDays } : {}),
        },
      });
      expect([200, 400], JSON.stringify(res.body)).toContain(res.status);
      await setPlanStatus(w, id, 'Active');
    } else {
      await setPlanStatus(w, id, this.kind === 'deactivate' ? 'Inactive' : 'Active');
    }
    await checkInvariants(w, false);
  }
  toString = () => `ChangePlan(${this.plan}, ${this.kind})`;
}

/** The merchant cancels one of the subscriptions the checkout made, whatever its state. */
class CancelSubscription implements Cmd {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    // Mostly one the merchant was told of (its checkout succeeded), else any.
    const made = (await w.attempts()).filter((a) => a.subscription_id);
    const told = made.filter((a) => a.status === 'succeeded');
    const a = pickOf(told.length && this.pick % 3 ? told : made, this.pick);
    if (a) {
      const id = a.subscription_id!;
      merchantCancels(w, id);
      const res = await w.to().request('POST', `/v1/subscriptions/${id}/cancel`, {
        headers: merchant,
      });
      noBadStatus('cancel subscription', res, [200, 409]);
      if (res.status === 200) {
        expect((res.body as { status: string }).status).toBe('Canceled');
        const sub = (await w.subscriptions()).find((x) => x.id === id);
        expect(sub?.status).toBe('Canceled');
        // Told now when the merchant was told of the subscription; else when it is.
        const now = (await w.attempts()).find((x) => x.id === a.id)!;
        const told = (await w.events()).filter(
          (e) => e.type === 'subscription.canceled' && e.session_id === a.session_id,
        );
        expect(told.length).toBe(now.status === 'succeeded' ? 1 : 0);
      }
    }
    await checkInvariants(w, false);
  }
  toString = () => `CancelSubscription(#${this.pick})`;
}

/** What the vaulted cards answer while the clock runs: as they are, or overridden. */
const CARD_TURNS = {
  as: null,
  'funds-once': { count: 1, returnCode: '51' },
  'funds-out': { count: 8, returnCode: '51' },
  declined: { count: 1, returnCode: '05' },
  'card-canceled': { count: 1, returnCode: '46' },
} as const;
type CardTurn = keyof typeof CARD_TURNS;

/**
 * Business time runs `days` on (both clocks; a maintenance round after), so trials end and
 * monthly billings fall due: the first charges of that time answered as `turn` says, so a
 * billing is paid, retried on insufficient funds (+2, +2 days), or finally declined.
 */
class BillingTime implements Cmd {
  constructor(
    readonly days: number,
    readonly turn: CardTurn,
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const turn = CARD_TURNS[this.turn];
    if (turn) {
      const res = await w.sandbox.call('POST', '/__sandbox/outcomes', { token: null, body: turn });
      expect(res.status).toBe(201);
    }
    try {
      // Rounds run all along in production: the first day settles what was unknown (the
      // resolver looks a week back), then the rest of the time in one go.
      await w.advance(25 * 60);
      await w.advance((this.days * 24 - 25) * 60);
    } finally {
      await w.sandbox.call('DELETE', '/__sandbox/outcomes', { token: null });
    }
    await checkInvariants(w, true);
  }
  toString = () => `BillingTime(${this.days} d, ${this.turn})`;
}

export const lifeCommands: fc.WeightedArbitrary<Cmd>[] = [
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom<PlanName>('monthly', 'trial'),
        fc.constantFrom(
          'amount' as const,
          'amount' as const,
          'deactivate' as const,
          'reactivate' as const,
        ),
      )
      .map(([p, k]) => new ChangePlan(p, k)),
  },
  { weight: 2, arbitrary: pick.map((p) => new CancelSubscription(p)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom(3, 8, 30, 32, 34, 61),
        fc.constantFrom<CardTurn>(
          'as',
          'as',
          'funds-once',
          'funds-out',
          'declined',
          'card-canceled',
        ),
      )
      .map(([d, t]) => new BillingTime(d, t)),
  },
];
