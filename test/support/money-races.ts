import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { PayResult } from '../../server/bff/checkout-api';
import { encryptWithKey, postForm, type HttpAnswer, type TestBff } from './bff';
import { answerAtAcs, type Challenge } from './challenge';
import {
  CARDS,
  merchant,
  noBadStatus,
  OnSession,
  pick,
  type Cmd,
  type Model,
} from './money-commands';
import { WEBHOOK_AUTH, type ModelSession, type MoneyWorld } from './money-world';

/**
 * Commands of the money model where two things happen at once: two submits of one session, a
 * pay and the merchant's expiry, two completions of one challenge, a BFF stopped mid-call.
 */

async function payBody(w: MoneyWorld, secret: string, number: string, method = 'credit') {
  const encryptedCard = encryptWithKey(w.cardKey, number);
  w.secrets.add(number).add(encryptedCard);
  return w.t.payBody(secret, number, { method: method as 'credit', encryptedCard });
}

const resultOf = (res: HttpAnswer) => (res.status === 200 ? (res.body as PayResult) : null);

/** Records what the shopper was told for the one attempt a step made, when it made one. */
async function record(w: MoneyWorld, sessionId: string, before: string[], answers: HttpAnswer[]) {
  const fresh = (await w.attemptIds(sessionId)).filter((id) => !before.includes(id));
  if (fresh.length > 1) throw new Error(`one session made ${fresh.length} attempts at once`);
  const told = answers.map(resultOf).filter((r): r is PayResult => r !== null);
  for (const result of told) {
    if (fresh[0] && result.status !== 'failed') {
      w.answers.push({ sessionId, attemptId: fresh[0], step: 'pay', result });
    }
  }
  // Two submits under one key may both be told of the one payment (the second a replay,
  // when it reaches the other instance after the first ended); never of two.
  const paid = new Set(
    told.flatMap((r) => (r.status === 'succeeded' ? [r.payment.paymentId] : [])),
  );
  if (paid.size > 1) {
    throw new Error(`two submits told of two payments: ${JSON.stringify(told)}`);
  }
}

class DoubleSubmit extends OnSession {
  constructor(
    pick: number,
    readonly sameKey: boolean,
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    const b1 = await payBody(w, s.secret, CARDS.approve);
    const b2 = this.sameKey ? b1 : await payBody(w, s.secret, CARDS.approve);
    const k1 = `dbl-${randomUUID()}`;
    const answers = await Promise.all([
      w.to().pay(s.secret, b1, k1),
      w.to().pay(s.secret, b2, this.sameKey ? k1 : `dbl-${randomUUID()}`),
    ]);
    for (const a of answers) noBadStatus('double submit', a, [200, 409]);
    if (this.sameKey && answers.every((a) => a.status === 200)) {
      expect(answers[1]!.body).toEqual(answers[0]!.body);
    }
    await record(w, s.id, before, answers);
  }
  override toString = () =>
    `DoubleSubmit(#${this.pick}, ${this.sameKey ? 'same key' : 'two keys'})`;
}

class PayAndExpire extends OnSession {
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    const body = await payBody(w, s.secret, CARDS.approve);
    const [paid, expired] = await Promise.all([
      w.to().pay(s.secret, body),
      w.to().request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers: merchant }),
    ]);
    noBadStatus('pay beside expire', paid, [200, 409]);
    noBadStatus('expire beside pay', expired, [200, 409]);
    if (expired.status === 200) expect(resultOf(paid)?.status).not.toBe('succeeded');
    await record(w, s.id, before, [paid]);
  }
  override toString = () => `PayAndExpire(#${this.pick})`;
}

class CompleteTwice extends OnSession {
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    const res = await w
      .to()
      .pay(s.secret, await payBody(w, s.secret, CARDS.challengePass, 'debit'));
    noBadStatus('pay', res, [200, 409]);
    const ch = resultOf(res);
    await record(w, s.id, before, [res]);
    if (ch?.status === 'challenge') {
      const answer = await answerAtAcs((ch as Challenge).challengeUrl, '1234');
      await postForm(answer.action, answer.fields);
      const complete = async () => {
        const encryptedCard = encryptWithKey(w.cardKey, CARDS.challengePass);
        w.secrets.add(encryptedCard);
        return w.to().frame(s.secret, 'POST', '/checkout/api/challenge/complete', {
          body: { challengeId: ch.challengeId, encryptedCard },
          headers: { 'idempotency-key': `cpl-${randomUUID()}` },
        });
      };
      const both = await Promise.all([complete(), complete()]);
      for (const a of both) noBadStatus('complete twice', a, [200, 409]);
      const attemptId = (await w.attemptIds(s.id)).find((id) => !before.includes(id))!;
      for (const r of both.map(resultOf)) {
        if (r) w.answers.push({ sessionId: s.id, attemptId, step: 'complete', result: r });
      }
    }
  }
  override toString = () => `CompleteTwice(#${this.pick})`;
}

class CrashDuringPay extends OnSession {
  constructor(
    pick: number,
    readonly call: 'credit' | 'debit' | 'validate',
  ) {
    super(pick);
  }
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    let step: (bff: TestBff) => Promise<unknown>;
    if (this.call === 'validate') {
      const res = await w
        .to()
        .pay(s.secret, await payBody(w, s.secret, CARDS.challengePass, 'debit'));
      noBadStatus('pay', res, [200, 409]);
      await record(w, s.id, before, [res]);
      const ch = resultOf(res);
      if (ch?.status !== 'challenge') return;
      const answer = await answerAtAcs(ch.challengeUrl, '1234');
      await postForm(answer.action, answer.fields);
      const encryptedCard = encryptWithKey(w.cardKey, CARDS.challengePass);
      w.secrets.add(encryptedCard);
      await w.fault('/v1/payments/3ds/validate', 'latency');
      step = (bff) =>
        bff.frame(s.secret, 'POST', '/checkout/api/challenge/complete', {
          body: { challengeId: ch.challengeId, encryptedCard },
        });
    } else {
      const body = await payBody(w, s.secret, CARDS.approve, this.call);
      await w.fault(this.call === 'credit' ? '/v1/payments' : '/v1/payments/3ds', 'latency');
      step = (bff) => bff.pay(s.secret, body);
    }
    const at = w.nextIndex();
    const lost = step(w.instances[at]!.t).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    // The instance stops while the gateway works on the call; the shopper's answer is lost.
    await w.restart(at, false);
    await lost;
    await w.clearFaults();
    if (this.call !== 'validate') await record(w, s.id, before, []);
  }
  override toString = () => `CrashDuringPay(#${this.pick}, ${this.call})`;
}

class LateSaleRace extends OnSession {
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    const body = await payBody(w, s.secret, CARDS.approve);
    await w.fault('/v1/payments', 'latency');
    const res = await w.to().pay(s.secret, body);
    await w.clearFaults();
    noBadStatus('pay', res, [200, 409]);
    await record(w, s.id, before, [res]);
    // The late sale lands while a maintenance round and the webhook inbox both settle it.
    await w.quiet();
    await Promise.all([w.round(), w.inbox(), w.round()]);
  }
  override toString = () => `LateSaleRace(#${this.pick})`;
}

/** Bad input of each kind: a 4xx naming the field, nothing written, never a 5xx. */
const BAD_SESSIONS: Record<string, unknown>[] = [
  { amount: 0 },
  { amount: 1.5 },
  { amount: -100 },
  { amount: '100' },
  { maxInstallments: 13 },
  { expiresInSeconds: 10 },
  { methods: ['pix'] },
];
const BAD_PAYS: Record<string, unknown>[] = [
  { installments: 13 },
  { installments: 0 },
  { method: 'pix' },
  { method: 'debit', installments: 2 },
  { encryptedCard: '' },
  { cardholderName: '' },
];
const BAD_NOTICES: Record<string, unknown>[] = [
  { movementId: -1 },
  { movementId: 'x' },
  { moment: 5 },
  { nsu: '' },
  { installmentNumber: 100 },
];

/** Bad input of kind `pick` (it picks the session too). */
class BadInput extends OnSession {
  async act(w: MoneyWorld, s: ModelSession, _m: Model) {
    const before = await w.attemptIds(s.id);
    const k = this.pick;
    const session = await w.to().request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: 1_000, origin: 'http://shop.test:3000', ...BAD_SESSIONS[k % 7] },
    });
    noBadStatus('bad session', session, [400]);
    const body = { ...(await payBody(w, s.secret, CARDS.approve)), ...BAD_PAYS[k % 6] };
    const pay = await w.to().pay(s.secret, body);
    noBadStatus('bad pay', pay, [200, 400, 409]);
    // An ended session says how it ended before it reads the body.
    if (pay.status === 200) expect(pay.body).toMatchObject({ status: 'failed', attemptsLeft: 0 });
    const notice = await w.to().request('POST', '/webhooks/gateway', {
      headers: { authorization: WEBHOOK_AUTH },
      body: {
        movementId: ++w.movement,
        nsu: '123',
        codAuth: 'X',
        installmentNumber: 1,
        moment: '2026-05-01T10:00:00.000-03:00',
        type: 'TransactionStatus',
        oldValue: '',
        newValue: 'Authorized',
        ...BAD_NOTICES[k % 5],
      },
    });
    noBadStatus('bad notice', notice, [400]);
    // A refused pay made no attempt.
    expect(await w.attemptIds(s.id)).toEqual(before);
  }
  override toString = () => `BadInput(#${this.pick})`;
}

export const raceCommands: fc.WeightedArbitrary<Cmd>[] = [
  { weight: 1, arbitrary: pick.map((p) => new LateSaleRace(p)) },
  {
    weight: 1,
    arbitrary: fc.nat(209).map((k) => new BadInput(k)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(pick, fc.boolean()).map(([p, same]) => new DoubleSubmit(p, same)),
  },
  { weight: 1, arbitrary: pick.map((p) => new PayAndExpire(p)) },
  { weight: 1, arbitrary: pick.map((p) => new CompleteTwice(p)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(pick, fc.constantFrom('credit' as const, 'debit' as const, 'validate' as const))
      .map(([p, m]) => new CrashDuringPay(p, m)),
  },
];
