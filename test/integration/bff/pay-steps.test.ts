import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { startBff, type TestBff } from '../../support/bff';
import { answerAtAcs, startChallenge } from '../../support/challenge';
import { failWrites } from '../../support/store-failures';
import { postForm } from '../../support/bff';

// Each step of a pay commits as one transaction (server/bff/atomic.ts): when a write of a
// step fails, none of that step's writes stay. A database trigger makes one write fail, as a
// crash or a full disk would stop the step there.

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());
afterEach(() => dropFailure());

const db = () => t.bff.ctx.db;

let removeFailure: (() => Promise<void>) | null = null;
async function failInsertsInto(table: 'payment_attempts' | 'bff_events'): Promise<void> {
  removeFailure = await failWrites(db(), table);
}
/** Makes a session's move to `status` fail. */
async function failSessionsMovingTo(status: string): Promise<void> {
  removeFailure = await failWrites(db(), 'checkout_sessions', 'update', `new.status = '${status}'`);
}
async function dropFailure(): Promise<void> {
  await removeFailure?.();
  removeFailure = null;
}

const sessionRow = (id: string) =>
  db().selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attemptsOf = (id: string) =>
  db().selectFrom('payment_attempts').selectAll().where('session_id', '=', id).execute();

describe('a pay whose step fails midway leaves nothing half-written', () => {
  it('the claim and its attempt: no session left processing without an attempt', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    await failInsertsInto('payment_attempts');
    const failed = await t.pay(s.clientSecret, body);
    expect(failed.status).toBe(500);
    // Without one transaction the session stayed `processing` with no attempt behind it: no
    // resolver could explain it and every later pay answered 409.
    expect((await sessionRow(s.id)).status).toBe('open');
    expect(await attemptsOf(s.id)).toHaveLength(0);

    await dropFailure();
    const paid = await t.pay(s.clientSecret, body);
    expect(paid.status).toBe(200);
    expect((paid.body as PayResult).status).toBe('succeeded');
  });

  it('the outcome and its event: a charge whose outcome cannot be written waits, pending', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    await failInsertsInto('bff_events');
    const failed = await t.pay(s.clientSecret, body);
    expect(failed.status).toBe(500);
    // The gateway charged, but the outcome (attempt, session, event) could not commit: the
    // session waits `pending` (no second charge) with its attempt `unknown`, for the resolver
    // to confirm against the gateway; never `succeeded` without the merchant's event.
    const [attempt] = await attemptsOf(s.id);
    expect(attempt?.status).toBe('unknown');
    expect((await sessionRow(s.id)).status).toBe('pending');
    await dropFailure();
    const again = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect(again.status).toBe(409);
  });
});

// A step that ended half-written here left a state nothing looks at again: a session waiting
// for a challenge that had ended, or `pending` beside an attempt no longer unknown.
describe('a 3-D Secure step that fails midway leaves nothing half-written', () => {
  const challengesOf = (id: string) =>
    db().selectFrom('challenges').selectAll().where('session_id', '=', id).execute();

  it('opening the challenge: the attempt stays unknown, with no challenge', async () => {
    const s = await t.createSession({ amount: 7_500 });
    const body = await t.payBody(s.clientSecret, '4000000000002503');
    await failSessionsMovingTo('challenge');
    expect((await t.pay(s.clientSecret, body)).status).toBe(500);
    // The gateway began a 3-D Secure payment: its outcome is the resolver's to find, which
    // looks up unknown attempts only (an attempt left in `challenge` it would never see).
    expect((await attemptsOf(s.id)).map((a) => a.status)).toEqual(['unknown']);
    expect(await challengesOf(s.id)).toEqual([]);
    expect((await sessionRow(s.id)).status).toBe('processing');
  });

  it('canceling it: the shopper can cancel again and pay', async () => {
    const { s, challenge } = await startChallenge(t);
    const cancel = () =>
      t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
        body: { challengeId: challenge.challengeId, reason: 'closed' },
      });
    await failSessionsMovingTo('open');
    expect((await cancel()).status).toBe(500);
    expect((await challengesOf(s.id)).map((c) => c.status)).toEqual(['pending']);
    expect((await attemptsOf(s.id)).map((a) => a.status)).toEqual(['challenge']);
    await dropFailure();
    expect((await cancel()).body).toMatchObject({ error: { code: 'challenge_canceled' } });
    expect((await sessionRow(s.id)).status).toBe('open');
  });

  it('paying again over an unanswered one: the next pay abandons it and succeeds', async () => {
    const { s } = await startChallenge(t);
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    await failSessionsMovingTo('open');
    expect((await t.pay(s.clientSecret, body)).status).toBe(500);
    await dropFailure();
    const paid = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((paid.body as PayResult).status).toBe('succeeded');
    const attempts = await attemptsOf(s.id);
    expect(attempts.map((a) => [a.status, a.failure_code]).sort()).toEqual([
      ['failed', 'challenge_canceled'],
      ['succeeded', null],
    ]);
  });

  it('completing it: the answered challenge can be completed again', async () => {
    const { s, challenge } = await startChallenge(t);
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
    const complete = async () =>
      t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
        body: {
          challengeId: challenge.challengeId,
          encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
        },
      });
    // The attempt cannot be marked unknown before the validate call.
    removeFailure = await failWrites(db(), 'payment_attempts', 'update', "new.status = 'unknown'");
    expect((await complete()).status).toBe(500);
    expect((await challengesOf(s.id)).map((c) => c.status)).toEqual(['answered']);
    expect((await sessionRow(s.id)).status).toBe('challenge');
    await dropFailure();
    expect((await complete()).body).toMatchObject({ status: 'succeeded' });
  });
});
