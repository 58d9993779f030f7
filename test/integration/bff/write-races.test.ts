import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { eventsDb } from '../../../server/bff/events/store';
import { MERCHANT_SECRET, postForm, type TestBff } from '../../support/bff';
import { startBffPair, type BffPair } from '../../support/bff-pair';
import { answerAtAcs, startChallenge } from '../../support/challenge';
import { createPlanSession, payPlanCredit } from '../../support/plan-pay';

// The BFF's writes outside the pay step (which the money model races), each sent twice at
// once to two instances on one store: what may apply once applies once. Each write's check
// is in its statement (a compare-and-set on the state it reads, or a unique dedup key).
let pair: BffPair;
let a: TestBff;
let b: TestBff;

beforeAll(async () => {
  pair = await startBffPair({ payRateLimitPerMinute: 10_000 });
  ({ a, b } = pair);
});
afterAll(() => pair.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

/** The events of a type written about a session. */
const eventsOf = (type: string, sessionId: string) =>
  eventsDb(pair.store.db)
    .selectFrom('bff_events')
    .select('id')
    .where('type', '=', type)
    .where('session_id', '=', sessionId)
    .execute();

const row = (table: 'checkout_sessions' | 'challenges', id: string) =>
  pair.store.db.selectFrom(table).select('status').where('id', '=', id).executeTakeFirstOrThrow();

describe('two calls at once on two instances', () => {
  it('the ACS answer posted to both is stored once', async () => {
    const { challenge } = await startChallenge(a);
    const acs = await answerAtAcs(challenge.challengeUrl, '1234');
    const path = new URL(acs.action).pathname;
    const [x, y] = await Promise.all(
      [a, b].map((t) => postForm(`${t.url}${path}`, acs.fields).then((r) => r.status)),
    );
    expect([x, y].sort()).toEqual([200, 409]);
    expect(await row('challenges', challenge.challengeId)).toEqual({ status: 'answered' });
  });

  it('complete and cancel of one answered challenge: one of them ends it', async () => {
    const { s, challenge } = await startChallenge(a);
    const acs = await answerAtAcs(challenge.challengeUrl, '1234');
    expect((await postForm(acs.action, acs.fields)).status).toBe(200);
    const encryptedCard = await a.encryptCard(s.clientSecret, '4000000000002503');
    const [complete, cancel] = await Promise.all([
      a.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
        body: { challengeId: challenge.challengeId, encryptedCard },
      }),
      b.frame(s.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
        body: { challengeId: challenge.challengeId, reason: 'closed' },
      }),
    ]);
    const ended = (await row('challenges', challenge.challengeId)).status;
    const session = (await row('checkout_sessions', s.id)).status;
    if (ended === 'completed') {
      // The validate call ran: the payment stands, the cancel was too late.
      expect((complete.body as PayResult).status).toBe('succeeded');
      expect(session).toBe('succeeded');
      expect(cancel.status).not.toBe(500);
      expect(cancel.body).not.toMatchObject({ status: 'failed' });
    } else {
      // Closed first: nothing was validated, the session takes payments again.
      expect(ended).toBe('canceled');
      expect(complete.status).toBe(409);
      expect(cancel.body).toMatchObject({
        status: 'failed',
        error: { code: 'challenge_canceled' },
      });
      expect(session).toBe('open');
    }
  });

  it('a subscription canceled on both is canceled once, with one event', async () => {
    const plan = await a.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Races monthly',
        description: 'Races membership',
        amount: 19.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
      },
    });
    expect(plan.status).toBe(200);
    const s = await createPlanSession(a, plan.body as string);
    const paid = await payPlanCredit(a, s);
    expect(paid.status).toBe('succeeded');
    const id = (paid as Extract<PayResult, { status: 'succeeded' }>).payment.subscriptionId!;
    const answers = await Promise.all(
      [a, b].map((t) => t.request('POST', `/v1/subscriptions/${id}/cancel`, { headers: merchant })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(await eventsOf('subscription.canceled', s.id)).toHaveLength(1);
  });
});
