import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { PayResult } from '../../server/bff/checkout-api';
import { IDEMPOTENCY_TTL_MS } from '../../server/bff/idempotency';
import { encryptWithKey, MERCHANT_ORIGIN, MERCHANT_SECRET, postForm, type HttpAnswer } from './bff';
import { answerAtAcs, type Challenge } from './challenge';
import { checkInvariants } from './money-invariants';
import { unexpected5xx, WEBHOOK_AUTH, type ModelSession, type MoneyWorld } from './money-world';

/**
 * The commands of the money model (test/integration/bff/money-model.test.ts): shopper,
 * merchant, gateway and operator actions on the real stack, each followed by the invariants.
 */

export interface Model {
  sessions: number;
  keys: number;
}

export type Cmd = fc.AsyncCommand<Model, MoneyWorld>;
export const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

export const CARDS = {
  approve: '4000000000002701',
  decline: '4000000000000002',
  insufficient: '4000000000009995',
  challengePass: '4000000000002503',
  challengeFail: '4000000000002370',
  challengeLeave: '4000000000002503',
  internalError: '4000000000000119',
} as const;
export type CardKind = keyof typeof CARDS;
export type Fault = 'none' | 'latency' | '500' | 'drop';

export function noBadStatus(what: string, res: HttpAnswer, allowed: number[]): void {
  if (unexpected5xx(res) || !allowed.includes(res.status)) {
    throw new Error(`${what}: unexpected HTTP ${res.status} ${res.text}`);
  }
}

/** A pay's Idempotency-Key, its body and first answer: the model resends it later. */
export function keyUsed(
  w: MoneyWorld,
  m: Model,
  s: ModelSession,
  key: string,
  body: unknown,
  first: HttpAnswer,
): void {
  w.keys.push({
    sessionId: s.id,
    secret: s.secret,
    key,
    body,
    first,
    at: w.t.clock.now().getTime(),
  });
  m.keys++;
}

export const pickOf = <T>(list: readonly T[], pick: number): T | undefined =>
  list.length ? list[pick % list.length] : undefined;

/** A command on one of the run's sessions (picked by index), then the invariants. */
export abstract class OnSession implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Model) => m.sessions > 0;
  abstract act(w: MoneyWorld, s: ModelSession, m: Model): Promise<void>;
  async run(m: Model, w: MoneyWorld) {
    await this.act(w, pickOf(w.sessions, this.pick)!, m);
    await checkInvariants(w, false);
  }
}

class CreateSession implements Cmd {
  constructor(
    readonly amount: number,
    readonly key: 'none' | 'fresh' | 'same' | 'other',
    readonly expiresInSeconds: number,
    readonly reference?: string,
  ) {}
  check = () => true;
  async run(m: Model, w: MoneyWorld) {
    const now = w.t.clock.now().getTime();
    // Keys are kept a day: past it the same key makes a new session.
    const last =
      w.lastSessionKey && now - w.lastSessionKey.at < IDEMPOTENCY_TTL_MS ? w.lastSessionKey : null;
    const reuse = (this.key === 'same' || this.key === 'other') && last;
    const key = reuse ? last.key : this.key === 'none' ? undefined : `cart-${randomUUID()}`;
    const body = {
      amount: this.amount,
      origin: MERCHANT_ORIGIN,
      methods: ['credit', 'debit'],
      maxInstallments: 3,
      expiresInSeconds: this.expiresInSeconds,
    } as { amount: number; referenceTransaction?: string };
    if (this.reference) body.referenceTransaction = this.reference;
    if (reuse) delete body.referenceTransaction;
    // The same key with the very same body, or with its amount changed.
    if (reuse) Object.assign(body, last.body);
    if (reuse && this.key === 'other') body.amount = last.body.amount + 1;
    const res = await w.to().request('POST', '/v1/checkout-sessions', {
      headers: { ...merchant, ...(key ? { 'idempotency-key': key } : {}) },
      body,
    });
    if (reuse && this.key === 'other') {
      noBadStatus('session key reused with another body', res, [422]);
    } else {
      noBadStatus('create session', res, [201]);
      const s = res.body as { id: string; clientSecret: string };
      if (reuse) {
        expect(s.id).toBe(last.id);
        expect(res.headers.get('idempotent-replayed')).toBe('true');
      } else {
        w.sessions.push({ id: s.id, secret: s.clientSecret, amount: body.amount });
        m.sessions++;
        if (key) w.lastSessionKey = { key, body, id: s.id, at: now };
      }
    }
    await checkInvariants(w, false);
  }
  toString = () =>
    `CreateSession(${this.amount}, ${this.key}, ${this.expiresInSeconds} s, ref ${JSON.stringify(this.reference ?? null)})`;
}

const PATHS = { credit: '/v1/payments', debit: '/v1/payments/3ds' } as const;

class Pay extends OnSession {
  constructor(
    pick: number,
    readonly card: CardKind,
    readonly method: 'credit' | 'debit',
    readonly fault: Fault,
    readonly validateFault: Fault,
    readonly installments = 1,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, m: Model) {
    const challenged = this.card.startsWith('challenge');
    const method = challenged ? 'debit' : this.method;
    const number = CARDS[this.card];
    const encryptedCard = encryptWithKey(w.cardKey, number);
    w.secrets.add(number).add(encryptedCard);
    const installments = method === 'credit' ? this.installments : 1;
    const body = await w.t.payBody(s.secret, number, { method, encryptedCard, installments });
    const view = await w.to().frame(s.secret, 'GET', '/checkout/api/session');
    noBadStatus('frame session', view, [200]);
    const wasOpen = (view.body as { status: string }).status === 'open';
    const before = await w.attemptIds(s.id);
    if (this.fault !== 'none') await w.fault(PATHS[method], this.fault);
    const key = `pay-${randomUUID()}`;
    const res = await w.to().pay(s.secret, body, key);
    const faultLeft = await w.clearFaults();
    noBadStatus('pay', res, [200, 409]);
    keyUsed(w, m, s, key, body, res);
    const fresh = (await w.attemptIds(s.id)).filter((id) => !before.includes(id));
    if (res.status === 200) {
      const result = res.body as PayResult;
      if (fresh.length > 1) throw new Error(`one pay made ${fresh.length} attempts`);
      if (fresh[0]) w.answers.push({ sessionId: s.id, attemptId: fresh[0], step: 'pay', result });
      if (wasOpen) this.expectAnswer(result, this.fault !== 'none' && faultLeft === 0);
      if (result.status === 'failed') {
        // The tries left the shopper is told are the ones the session then takes.
        const after = await w.to().frame(s.secret, 'GET', '/checkout/api/session');
        const view = after.body as { status: string; attemptsLeft: number };
        if (view.status === 'open') expect(view.attemptsLeft).toBe(result.attemptsLeft);
      }
      if (result.status === 'challenge' && fresh[0] && this.card !== 'challengeLeave') {
        await this.complete(w, s.secret, fresh[0], s.id, result);
      }
    }
  }

  /** What the shopper may be told for this card on an open session. */
  private expectAnswer(result: PayResult, faulted: boolean) {
    const allowed: Record<CardKind, string[]> = {
      approve: ['succeeded'],
      decline: ['failed'],
      insufficient: ['failed'],
      challengePass: ['challenge'],
      challengeFail: ['challenge'],
      challengeLeave: ['challenge'],
      internalError: [],
    };
    // A call that may have reached the gateway is "being confirmed", never "try again".
    const ok = faulted ? ['pending'] : [...allowed[this.card], 'pending'];
    if (!ok.includes(result.status)) {
      throw new Error(`pay ${this.card} (faulted: ${faulted}): ${JSON.stringify(result)}`);
    }
  }

  private async complete(
    w: MoneyWorld,
    secret: string,
    attemptId: string,
    sessionId: string,
    ch: Challenge,
  ) {
    const answer = await answerAtAcs(ch.challengeUrl, '1234');
    const back = await postForm(answer.action, answer.fields);
    expect(back.status).toBeLessThan(500);
    if (this.validateFault !== 'none') {
      await w.fault('/v1/payments/3ds/validate', this.validateFault);
    }
    const encryptedCard = encryptWithKey(w.cardKey, CARDS[this.card]);
    w.secrets.add(encryptedCard);
    const res = await w.to().frame(secret, 'POST', '/checkout/api/challenge/complete', {
      body: { challengeId: ch.challengeId, encryptedCard },
      headers: { 'idempotency-key': `complete-${randomUUID()}` },
    });
    const faultLeft = await w.clearFaults();
    noBadStatus('challenge complete', res, [200, 409]);
    if (res.status !== 200) return;
    const result = res.body as PayResult;
    w.answers.push({ sessionId, attemptId, step: 'complete', result });
    const faulted = this.validateFault !== 'none' && faultLeft === 0;
    const ok = faulted
      ? ['pending']
      : [this.card === 'challengePass' ? 'succeeded' : 'failed', 'pending'];
    if (!ok.includes(result.status)) {
      throw new Error(`complete ${this.card} (faulted: ${faulted}): ${JSON.stringify(result)}`);
    }
  }
  override toString = () =>
    `Pay(#${this.pick}, ${this.card}, ${this.method}, fault ${this.fault}, validate ${this.validateFault}, ${this.installments}x)`;
}

class Replay implements Cmd {
  constructor(
    readonly pick: number,
    readonly sameBody: boolean,
  ) {}
  check = (m: Model) => m.keys > 0;
  async run(_m: Model, w: MoneyWorld) {
    const used = pickOf(w.keys, this.pick)!;
    let body = used.body;
    if (!this.sameBody) {
      body = { ...(used.body as object), fingerprint: randomUUID() };
    }
    const res = await w.to().pay(used.secret, body, used.key);
    if (w.t.clock.now().getTime() - used.at >= IDEMPOTENCY_TTL_MS) {
      // Keys are kept a day (docs/bff-api.md): past it the pay runs again.
      noBadStatus('pay under a pruned key', res, [200, 409]);
    } else if (!this.sameBody) {
      noBadStatus('pay key with another body', res, [422]);
    } else {
      noBadStatus('pay replay', res, [used.first.status]);
      // Whichever instance answers, the very first answer (its challenge URL the balancer's).
      expect(res.body).toEqual(used.first.body);
    }
    await checkInvariants(w, false);
  }
  toString = () => `Replay(#${this.pick}, ${this.sameBody ? 'same body' : 'other body'})`;
}

class Round implements Cmd {
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    await w.round();
    await checkInvariants(w, false);
  }
  toString = () => 'Round()';
}

class Advance implements Cmd {
  constructor(readonly minutes: number) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    await w.advance(this.minutes);
    await checkInvariants(w, this.minutes >= 24 * 60);
  }
  toString = () => `Advance(${this.minutes} min)`;
}

class Notify implements Cmd {
  constructor(
    readonly pick: number,
    readonly kind: 'duplicate' | 'lie-cancel' | 'forged',
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const sale = pickOf(await w.ledger(), this.pick);
    const deliver = async (n: Record<string, unknown>) => {
      const res = await w.to().request('POST', '/webhooks/gateway', {
        headers: { authorization: WEBHOOK_AUTH },
        body: {
          installmentNumber: 1,
          moment: '2026-05-01T10:00:00.000-03:00',
          type: 'TransactionStatus',
          oldValue: '',
          ...n,
        },
      });
      noBadStatus('webhook', res, [200]);
    };
    const movementId = ++w.movement;
    if (this.kind === 'forged' || !sale) {
      await deliver({
        movementId,
        nsu: `7${movementId}`,
        codAuth: 'FORGED',
        newValue: 'Authorized',
      });
    } else if (this.kind === 'duplicate') {
      const n = { movementId, nsu: sale.nsu, codAuth: sale.codAuth ?? '', newValue: 'Authorized' };
      await deliver(n);
      await deliver(n);
    } else {
      await deliver({
        movementId,
        nsu: sale.nsu,
        codAuth: sale.codAuth ?? '',
        newValue: 'Canceled',
      });
    }
    await w.inbox();
    await checkInvariants(w, false);
  }
  toString = () => `Notify(#${this.pick}, ${this.kind})`;
}

class OperatorCancel implements Cmd {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    // Any approved sale, also one whose answer the BFF has not had yet.
    const paid = (await w.ledger())
      .filter((r) => r.transactionStatus === 'A')
      .map((r) => ({ payment_id: r.transactionPaymentIdWeb }));
    const p = pickOf(paid, this.pick);
    if (p?.payment_id) {
      const req = await w.sandbox.call('POST', '/__sandbox/cancellation-requests', {
        token: null,
        body: { paymentId: p.payment_id, description: 'model refund' },
      });
      if (req.status === 201) {
        const id = (req.body as { id: string }).id;
        for (const status of ['APROVADO', 'CANCELADO']) {
          const res = await w.sandbox.call(
            'POST',
            `/__sandbox/cancellation-requests/${id}/decide`,
            {
              token: null,
              body: { status },
            },
          );
          expect(res.status).toBe(200);
        }
      }
    }
    await checkInvariants(w, false);
  }
  toString = () => `OperatorCancel(#${this.pick})`;
}

class MerchantRead extends OnSession {
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const detail = await w
      .to()
      .request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    noBadStatus('merchant read', detail, [200]);
    const view = await w.to().frame(s.secret, 'GET', '/checkout/api/session');
    noBadStatus('frame read', view, [200]);
    // The shopper and the merchant see one state.
    expect((view.body as { status: string }).status).toBe(
      (detail.body as { status: string }).status,
    );
  }
  override toString = () => `MerchantRead(#${this.pick})`;
}

class MerchantExpire extends OnSession {
  constructor(
    pick: number,
    readonly withKey: boolean,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const res = await w.to().request('POST', `/v1/checkout-sessions/${s.id}/expire`, {
      headers: {
        ...merchant,
        ...(this.withKey ? { 'idempotency-key': `exp-${randomUUID()}` } : {}),
      },
    });
    noBadStatus('merchant expire', res, [200, 409]);
    if (res.status === 200) expect((res.body as { status: string }).status).toBe('expired');
  }
  override toString = () => `MerchantExpire(#${this.pick}, key ${this.withKey})`;
}

/** One instance stopped (its lease given up) or killed (its lease lapses), then started again. */
class Restart implements Cmd {
  constructor(readonly graceful: boolean) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    await w.restart(w.nextIndex(), this.graceful);
    await checkInvariants(w, false);
  }
  toString = () => `Restart(${this.graceful ? 'stop' : 'kill'})`;
}

/**
 * A step with its route: which instance the balancer sends each of its requests to (bit k of
 * `bits` for the k-th), so a pay, its resend, its challenge's completion, the merchant's reads
 * and the maintenance rounds reach either instance on the one store.
 */
export class Routed implements Cmd {
  constructor(
    readonly cmd: Cmd,
    readonly bits: number,
  ) {}
  check = (m: Readonly<Model>) => this.cmd.check(m);
  async run(m: Model, w: MoneyWorld) {
    w.routeBy(this.bits);
    await this.cmd.run(m, w);
  }
  toString = () => `${String(this.cmd)}@${this.bits.toString(2)}`;
}

/** Each command with a route fast-check chooses (shrinking toward instance 0). */
export const routed = (list: fc.WeightedArbitrary<Cmd>[]): fc.WeightedArbitrary<Cmd>[] =>
  list.map(({ weight, arbitrary }) => ({
    weight,
    arbitrary: fc.tuple(arbitrary, fc.nat(255)).map(([c, bits]) => new Routed(c, bits)),
  }));

export const pick = fc.nat(20);
const fault = fc.constantFrom<Fault>('none', 'none', 'none', 'latency', '500', 'drop');

/** The single-step commands, weighted toward the pay paths. */
export const stepCommands: fc.WeightedArbitrary<Cmd>[] = [
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 100, max: 50_000 }),
        fc.constantFrom('none', 'fresh', 'same', 'other'),
        fc.constantFrom(1_800, 86_400),
        // Merchant references: none, shared by sessions, as long as allowed, not ASCII.
        fc.constantFrom(
          undefined,
          'order-1001',
          'x'.repeat(50),
          'pedido/ção/😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀',
        ),
      )
      .map(([a, k, e, r]) => new CreateSession(a, k as CreateSession['key'], e, r)),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        pick,
        fc.constantFrom(...(Object.keys(CARDS) as CardKind[])),
        fc.constantFrom('credit' as const, 'debit' as const),
        fault,
        fault,
        fc.integer({ min: 1, max: 3 }),
      )
      .map(([p, c, m, f, v, n]) => new Pay(p, c, m, f, v, n)),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(pick, fc.constantFrom<CardKind>('approve', 'decline'), fault)
      .map(([p, c, f]) => new Pay(p, c, 'credit', f, 'none')),
  },
  { weight: 2, arbitrary: fc.tuple(pick, fc.boolean()).map(([p, same]) => new Replay(p, same)) },
  { weight: 1, arbitrary: fc.constant(new Round()) },
  { weight: 1, arbitrary: fc.constantFrom(31, 25 * 60).map((min) => new Advance(min)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(pick, fc.constantFrom('duplicate', 'lie-cancel', 'forged'))
      .map(([p, k]) => new Notify(p, k as Notify['kind'])),
  },
  { weight: 1, arbitrary: pick.map((p) => new OperatorCancel(p)) },
  { weight: 1, arbitrary: pick.map((p) => new MerchantRead(p)) },
  {
    weight: 1,
    arbitrary: fc.tuple(pick, fc.boolean()).map(([p, k]) => new MerchantExpire(p, k)),
  },
  { weight: 1, arbitrary: fc.boolean().map((graceful) => new Restart(graceful)) },
];
