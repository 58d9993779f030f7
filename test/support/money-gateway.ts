import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { PayResult } from '../../server/bff/checkout-api';
import { encryptWithKey, postForm } from './bff';
import { answerAtAcs, type Challenge } from './challenge';
import {
  CARDS,
  keyUsed,
  noBadStatus,
  OnSession,
  pick,
  pickOf,
  type CardKind,
  type Cmd,
  type Model,
} from './money-commands';
import { checkInvariants } from './money-invariants';
import type { ModelSession, MoneyWorld } from './money-world';

/**
 * Money-model commands (test/integration/bff/money-model.test.ts) for a gateway that refuses:
 * a 4xx on the pay or validate call (before it processed anything, or a 409/500 after it
 * charged), credentials refused for a while, the card key rotated under the shopper or its
 * endpoint failing, and the BFF's clock minutes off the gateway's.
 *
 * Which refusal proves the payment did not happen (gateway spec, Errors and Authentication):
 * `400` ("request or 3DS validation error") and `401` (every call needs a valid token) come
 * before any processing; the BFF reads `422` as a `400` and `403` as an access refusal. A `409`
 * or a `5xx` may come after the gateway charged: the outcome is unknown ("being confirmed").
 */

const PATHS = {
  credit: '/v1/payments',
  debit: '/v1/payments/3ds',
  validate: '/v1/payments/3ds/validate',
  /** A plan session's money call (its card paid by credit, after the vault). */
  plan: '/v1/recurrences/subscriptions',
} as const;
type Step = keyof typeof PATHS;

/** A gateway refusal: its status, how many calls it answers, and whether it came after charging. */
export interface Refusal {
  status: 400 | 401 | 403 | 409 | 422 | 500;
  /** A `401` twice: the refresh of the token and its one retry are refused too. */
  count: 1 | 2;
  after: boolean;
}

/** What the shopper must be told when the refusal was taken on an open session. */
function meaning(r: Refusal): 'card' | 'refused' | 'not-judged' | 'unknown' {
  if (r.after || r.status === 409 || r.status === 500) return 'unknown';
  if (r.status === 401 && r.count === 1) return 'card'; // refreshed and retried once
  return r.status === 400 || r.status === 422 ? 'refused' : 'not-judged';
}

interface PayOutcome {
  wasOpen: boolean;
  /** Tries left before the pay (the public view's). */
  left: number;
  result?: PayResult;
  attemptId?: string | undefined;
}

async function publicView(w: MoneyWorld, s: ModelSession) {
  const view = await w.to().frame(s.secret, 'GET', '/checkout/api/session');
  noBadStatus('frame session', view, [200]);
  return view.body as { status: string; attemptsLeft: number };
}

/** One pay of `card` on `s` (a fresh key; `setup` injects faults just before it). */
async function payOnce(
  w: MoneyWorld,
  m: Model,
  s: ModelSession,
  card: CardKind,
  method: 'credit' | 'debit',
  opts: { encryptedCard?: string; setup?: () => Promise<void> } = {},
): Promise<PayOutcome> {
  const number = CARDS[card];
  const encryptedCard = opts.encryptedCard ?? encryptWithKey(w.cardKey, number);
  w.secrets.add(number).add(encryptedCard);
  const body = await w.t.payBody(s.secret, number, { method, encryptedCard, installments: 1 });
  const view = await publicView(w, s);
  const before = await w.attemptIds(s.id);
  await opts.setup?.();
  const key = `pay-${randomUUID()}`;
  const res = await w.to().pay(s.secret, body, key);
  noBadStatus('pay', res, [200, 409]);
  keyUsed(w, m, s, key, body, res);
  const out: PayOutcome = { wasOpen: view.status === 'open', left: view.attemptsLeft };
  if (res.status !== 200) return out;
  out.result = res.body as PayResult;
  const fresh = (await w.attemptIds(s.id)).filter((id) => !before.includes(id));
  if (fresh.length > 1) throw new Error(`one pay made ${fresh.length} attempts`);
  out.attemptId = fresh[0];
  if (fresh[0])
    w.answers.push({ sessionId: s.id, attemptId: fresh[0], step: 'pay', result: out.result });
  return out;
}

/**
 * A debit pay of a challenge card on `s`; when it asks for the challenge, the shopper passes it
 * at the ACS, `between` runs, and the frame completes it. Resolves the completion's answer.
 */
async function passChallenge(
  w: MoneyWorld,
  m: Model,
  s: ModelSession,
  between: () => Promise<void>,
): Promise<{ result: PayResult; attemptId: string } | undefined> {
  const out = await payOnce(w, m, s, 'challengePass', 'debit');
  if (out.result?.status !== 'challenge' || !out.attemptId) return undefined;
  const ch = out.result as Challenge;
  const answer = await answerAtAcs(ch.challengeUrl, '1234');
  expect((await postForm(answer.action, answer.fields)).status).toBeLessThan(500);
  await between();
  const encryptedCard = encryptWithKey(w.cardKey, CARDS.challengePass);
  w.secrets.add(encryptedCard);
  const res = await w.to().frame(s.secret, 'POST', '/checkout/api/challenge/complete', {
    body: { challengeId: ch.challengeId, encryptedCard },
    headers: { 'idempotency-key': `complete-${randomUUID()}` },
  });
  noBadStatus('challenge complete', res, [200, 409]);
  if (res.status !== 200) return undefined;
  const result = res.body as PayResult;
  w.answers.push({ sessionId: s.id, attemptId: out.attemptId, step: 'complete', result });
  return { result, attemptId: out.attemptId };
}

/** What a card answers when nothing gets in the way (its first gateway step). */
const NATURAL: Partial<Record<CardKind, PayResult['status']>> = {
  approve: 'succeeded',
  decline: 'failed',
  challengePass: 'challenge',
};

/**
 * Checks the answer and the attempt row of a step whose refusal `r` was taken: "try again"
 * (no try used, never "declined") only when the gateway did not process it, "invalid card"
 * (one try used) for a refused request, "being confirmed" when it may have charged.
 */
async function expectRefusal(
  w: MoneyWorld,
  r: Refusal,
  natural: PayResult['status'],
  left: number,
  result: PayResult,
  attemptId: string | undefined,
): Promise<void> {
  const what = `${JSON.stringify(r)} → ${JSON.stringify(result)}`;
  const row = (await w.attempts()).find((a) => a.id === attemptId);
  switch (meaning(r)) {
    case 'card':
      if (![natural, 'pending'].includes(result.status)) throw new Error(`refreshed: ${what}`);
      return;
    case 'unknown':
      if (result.status !== 'pending') throw new Error(`may have charged: ${what}`);
      return;
    case 'not-judged':
      expect(result, what).toEqual({
        status: 'failed',
        error: { code: 'try_again_later', retryable: true },
        attemptsLeft: left,
      });
      expect(row && [row.status, row.failure_code], what).toEqual(['failed', 'try_again_later']);
      return;
    case 'refused': {
      const last = left <= 1;
      expect(result, what).toMatchObject({
        status: 'failed',
        error: { code: last ? 'attempts_exhausted' : 'invalid_card', retryable: !last },
        attemptsLeft: left - 1,
      });
      expect(row?.status, what).toBe('failed');
    }
  }
}

const fault = (w: MoneyWorld, body: Record<string, unknown>) =>
  w.sandbox.call('POST', '/__sandbox/faults', { token: null, body }).then((res) => {
    if (res.status !== 201) throw new Error(`fault: ${res.status}`);
  });

const refusalFault = (w: MoneyWorld, step: Step, r: Refusal) =>
  fault(w, { method: 'POST', path: PATHS[step], count: r.count, status: r.status, after: r.after });

/** Who pays: a session by credit or by debit, or one of the run's plan sessions (credit). */
type Target = 'credit' | 'debit' | 'plan';

/** A command on a session of its target (picked by index), then the invariants. */
abstract class OnTarget implements Cmd {
  constructor(
    readonly pick: number,
    readonly target: Target,
  ) {}
  check = () => true;
  get method(): 'credit' | 'debit' {
    return this.target === 'plan' ? 'credit' : this.target;
  }
  abstract act(w: MoneyWorld, s: ModelSession, m: Model): Promise<void>;
  async run(m: Model, w: MoneyWorld) {
    const s = pickOf(this.target === 'plan' ? w.planSessions : w.sessions, this.pick);
    if (s) await this.act(w, s, m);
    await checkInvariants(w, false);
  }
}

/** The pay's money call (a plan's: the subscription's) answered with a gateway refusal. */
class PayRefused extends OnTarget {
  constructor(
    pick: number,
    readonly card: 'approve' | 'decline',
    target: Target,
    readonly r: Refusal,
  ) {
    super(pick, target);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    const out = await payOnce(w, m, s, this.card, this.method, {
      setup: () => refusalFault(w, this.target, this.r),
    });
    const taken = (await w.clearFaults()) === 0;
    if (out.result && out.wasOpen && taken) {
      // A trial's subscription charges nothing when it is made: no card is judged yet.
      const trial =
        this.target === 'plan' &&
        (await w.sessionRows()).some((r) => r.id === s.id && r.plan_id === w.trialPlanId);
      const natural = trial ? 'succeeded' : NATURAL[this.card]!;
      await expectRefusal(w, this.r, natural, out.left, out.result, out.attemptId);
    }
  }
  override toString = () =>
    `PayRefused(#${this.pick}, ${this.card}, ${this.target}, ${refusalText(this.r)})`;
}

/** A challenge passed at the ACS whose validate call is answered with a gateway refusal. */
class ValidateRefused extends OnSession {
  constructor(
    pick: number,
    readonly r: Refusal,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    let left = 0;
    const result = await passChallenge(w, m, s, async () => {
      left = (await publicView(w, s)).attemptsLeft;
      await refusalFault(w, 'validate', this.r);
    });
    const taken = (await w.clearFaults()) === 0;
    if (result && taken)
      await expectRefusal(w, this.r, 'succeeded', left, result.result, result.attemptId);
  }
  override toString = () => `ValidateRefused(#${this.pick}, ${refusalText(this.r)})`;
}

const refusalText = (r: Refusal) =>
  `${r.status}${r.count > 1 ? '×2' : ''}${r.after ? ' after' : ''}`;

/**
 * The gateway refuses the BFF's credentials for a while (every call and the token operations
 * answer 401): a pay is "try again" with no try used, the resolver and the webhook inbox
 * conclude nothing, a cached card key is still served. Then they are accepted again: the
 * next pay goes through (no token or state left stuck).
 */
class CredentialsRefused extends OnSession {
  constructor(
    pick: number,
    readonly method: 'credit' | 'debit',
    readonly cancel: boolean,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    await w.quiet();
    // Read while the model's own calls are still accepted.
    const sale = this.cancel
      ? (await w.ledger()).find((r) => r.transactionStatus === 'A' && r.transactionPaymentIdWeb)
      : undefined;
    const refused = { status: 401, count: 2, after: false } as const;
    const out = await payOnce(w, m, s, 'approve', this.method, {
      setup: () => fault(w, { count: 10_000, status: 401 }),
    });
    if (out.result && out.wasOpen) {
      await expectRefusal(w, refused, 'succeeded', out.left, out.result, out.attemptId);
    }
    const key = await w.to().frame(s.secret, 'GET', '/checkout/api/public-key');
    noBadStatus('public key while refused', key, [200, 503]);
    if (sale) await cancelSale(w, sale.transactionPaymentIdWeb!);
    await w.round();
    await w.clearFaults();
    await checkInvariants(w, false);
    // Accepted again: a pay on an open session is no longer refused.
    const again = await payOnce(w, m, s, 'approve', this.method);
    if (again.result && again.wasOpen && !['succeeded', 'pending'].includes(again.result.status)) {
      throw new Error(`pay after the credentials came back: ${JSON.stringify(again.result)}`);
    }
  }
  override toString = () =>
    `CredentialsRefused(#${this.pick}, ${this.method}, cancel ${this.cancel})`;
}

/** The operator cancels a sale (its notification may reach a BFF whose credentials are refused). */
async function cancelSale(w: MoneyWorld, paymentId: string): Promise<void> {
  const req = await w.sandbox.call('POST', '/__sandbox/cancellation-requests', {
    token: null,
    body: { paymentId, description: 'model refund' },
  });
  if (req.status !== 201) return;
  const id = (req.body as { id: string }).id;
  for (const status of ['APROVADO', 'CANCELADO']) {
    const res = await w.sandbox.call('POST', `/__sandbox/cancellation-requests/${id}/decide`, {
      token: null,
      body: { status },
    });
    expect(res.status).toBe(200);
  }
}

/**
 * The card public key: `rotate` between the shopper's encryption and the pay (the pay is
 * refused as a bad card, every instance then hands out the new key, and a pay with it goes
 * through), or the key endpoint failing with `status` (503 to the frame, never a 500 nor a
 * failure cached: the next read has the key).
 */
class CardKeyChange extends OnTarget {
  constructor(
    pick: number,
    target: Target,
    readonly kind: 'rotate' | 400 | 401 | 500,
  ) {
    super(pick, target);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    const readKey = (i: number) =>
      w.instances[i]!.t.frame(s.secret, 'GET', '/checkout/api/public-key');
    if (this.kind !== 'rotate') {
      const i = w.nextIndex();
      // As after a refusal elsewhere: this instance asks the gateway on its next read.
      await w.instances[i]!.t.bff.ctx.publicKey.drop();
      const count = this.kind === 401 ? 2 : 1;
      await fault(w, { method: 'GET', path: '/v1/cards/public-key', count, status: this.kind });
      const failed = await readKey(i);
      expect(await w.clearFaults()).toBe(0);
      noBadStatus('public key, endpoint failing', failed, [503]);
      const back = await readKey(i);
      noBadStatus('public key after', back, [200]);
      expect((back.body as { key: string }).key).toBe(w.cardKey);
      return;
    }
    // Frames loaded on every instance hold the key (cached there); the shopper's encrypted
    // with the one its instance handed out. Then the gateway rotates it.
    const held: string[] = [];
    for (let i = 0; i < w.instances.length; i++) {
      const key = await readKey(i);
      noBadStatus('public key', key, [200]);
      held.push((key.body as { key: string }).key);
    }
    const stale = encryptWithKey(held[w.nextIndex()]!, CARDS.approve);
    w.secrets.add(stale);
    const rotated = await w.sandbox.call('POST', '/__sandbox/card-keys/rotate', {
      token: null,
      body: {},
    });
    if (rotated.status !== 200) throw new Error(`rotate: ${rotated.status}`);
    w.cardKey = (rotated.body as { key: string }).key;
    const out = await payOnce(w, m, s, 'approve', this.method, { encryptedCard: stale });
    if (!out.result || !out.wasOpen) return;
    const r = { status: 400, count: 1, after: false } as const;
    await expectRefusal(w, r, 'failed', out.left, out.result, out.attemptId);
    // Every instance now reads the new key (the refusal dropped the copies through the store).
    for (let i = 0; i < w.instances.length; i++) {
      const key = await readKey(i);
      noBadStatus('public key after a rotation', key, [200]);
      expect((key.body as { key: string }).key).toBe(w.cardKey);
    }
    if (out.left > 1) {
      const again = await payOnce(w, m, s, 'approve', this.method);
      expect(again.result?.status).toMatch(/^(succeeded|pending)$/);
    }
  }
  override toString = () => `CardKeyChange(#${this.pick}, ${this.target}, ${this.kind})`;
}

/** BFF minus gateway, in minutes, per world: the skew the model has set. */
const skews = new WeakMap<MoneyWorld, number>();

/**
 * Sets the BFF's clock (both instances: one machine's clock) `minutes` off the gateway's by
 * moving one of them forward, the other left where it is.
 */
async function setSkew(w: MoneyWorld, minutes: number): Promise<void> {
  const diff = minutes - (skews.get(w) ?? 0);
  await w.quiet();
  if (diff > 0) {
    for (const { t } of w.instances) t.clock.advance(diff * 60_000);
  } else if (diff < 0) {
    const res = await w.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { minutes: -diff },
    });
    if (res.status !== 200) throw new Error(`sandbox clock: ${res.status}`);
  }
  skews.set(w, minutes);
}

const skewText = (minutes: number) => `BFF ${minutes >= 0 ? '+' : ''}${minutes} min`;

/** The BFF's clock set minutes off the gateway's, then a maintenance round (the resolver). */
class Skew implements Cmd {
  constructor(readonly minutes: number) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    await setSkew(w, this.minutes);
    await w.round();
    await checkInvariants(w, false);
  }
  toString = () => `Skew(${skewText(this.minutes)})`;
}

/**
 * A challenge answered at the ACS, then the clocks drift apart before its completion: the
 * BFF's and the gateway's ten minutes no longer end together. Whatever either decides, the
 * invariants hold.
 */
class SkewedChallenge extends OnSession {
  constructor(
    pick: number,
    readonly minutes: number,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    await passChallenge(w, m, s, () => setSkew(w, this.minutes));
  }
  override toString = () => `SkewedChallenge(#${this.pick}, ${skewText(this.minutes)})`;
}

const refusal = fc.oneof(
  fc.constantFrom<Refusal>(
    { status: 400, count: 1, after: false },
    { status: 401, count: 1, after: false },
    { status: 401, count: 2, after: false },
    { status: 403, count: 1, after: false },
    { status: 409, count: 1, after: false },
    { status: 422, count: 1, after: false },
  ),
  // After it charged: only a status that may mean so.
  fc.constantFrom<Refusal>(
    { status: 409, count: 1, after: true },
    { status: 500, count: 1, after: true },
  ),
);
const method = fc.constantFrom('credit' as const, 'debit' as const);
const skew = fc.constantFrom(-12, -4, 0, 4, 12);
const target = fc.constantFrom<Target>('credit', 'debit', 'plan');

/** The commands of this file, weighted as a small share of a run. */
export const gatewayCommands: fc.WeightedArbitrary<Cmd>[] = [
  {
    weight: 2,
    arbitrary: fc
      .tuple(pick, fc.constantFrom('approve' as const, 'decline' as const), target, refusal)
      .map(([p, c, m, r]) => new PayRefused(p, c, m, r)),
  },
  { weight: 1, arbitrary: fc.tuple(pick, refusal).map(([p, r]) => new ValidateRefused(p, r)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(pick, method, fc.boolean())
      .map(([p, m, c]) => new CredentialsRefused(p, m, c)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        pick,
        target,
        fc.constantFrom('rotate' as const, 400 as const, 401 as const, 500 as const),
      )
      .map(([p, m, k]) => new CardKeyChange(p, m, k)),
  },
  { weight: 1, arbitrary: skew.map((min) => new Skew(min)) },
  { weight: 1, arbitrary: fc.tuple(pick, skew).map(([p, min]) => new SkewedChallenge(p, min)) },
];
