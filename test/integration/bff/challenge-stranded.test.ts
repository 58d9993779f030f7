import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { postForm, type TestBff } from '../../support/bff';
import { startBffPair, type BffPair } from '../../support/bff-pair';
import { answerAtAcs, type Challenge } from '../../support/challenge';
import type { TestSandbox } from '../../support/sandbox';

// Two BFF instances on one store: a debit pay runs on `a` while the resolver of `b` (the
// maintenance leader) judges the call stranded and moves the session to `pending` — what
// `SETTLES_FROM` allows every other outcome of a pay. The gateway then asks for a challenge.
let pair: BffPair;
let sandbox: TestSandbox;
let store: BffPair['store'];
let a: TestBff;
let b: TestBff;

beforeAll(async () => {
  pair = await startBffPair();
  ({ sandbox, store, a, b } = pair);
});
afterAll(() => pair.close());

const CHALLENGED = '4000000000002503';

const statusOf = async (table: 'checkout_sessions' | 'payment_attempts', id: string) =>
  (
    await store.db
      .selectFrom(table)
      .select('status')
      .where(table === 'checkout_sessions' ? 'id' : 'session_id', '=', id)
      .executeTakeFirst()
  )?.status;

/**
 * `b`'s resolver round, taking every unknown attempt of a `processing` session as stranded
 * (and, with `notHappenedAfterMs`, one not in the ledger as not having happened).
 */
const strandedRound = (notHappenedAfterMs?: number) =>
  resolveUnknownAttempts(b.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    strandedAfterMs: 0,
    ...(notHappenedAfterMs === undefined ? {} : { notHappenedAfterMs }),
  });

/** A challenged debit pay on `a` whose 3DS call answers only after `during` has run. */
async function payWhile(secret: string, sessionId: string, during: () => Promise<unknown>) {
  const body = await a.payBody(secret, CHALLENGED, { challengeWindowSize: '02' });
  // The 3DS call answers late: long enough for the other instance's round to run meanwhile.
  const fault = await sandbox.call('POST', '/__sandbox/faults', {
    token: null,
    body: { method: 'POST', path: '/v1/payments/3ds', count: 1, latencyMs: 1_500 },
  });
  expect(fault.status).toBeLessThan(300);
  const paying = a.pay(secret, body);
  for (
    let i = 0;
    i < 200 && (await statusOf('checkout_sessions', sessionId)) !== 'processing';
    i++
  ) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(await statusOf('checkout_sessions', sessionId)).toBe('processing');
  await during();
  const res = await paying;
  expect(res.status).toBe(200);
  return res.body as PayResult;
}

describe('a challenge asked for while another instance judged the pay stranded', () => {
  it('opens on the pending session, which the shopper then completes', async () => {
    const s = await a.createSession({ amount: 7_500 });
    const challenge = (await payWhile(s.clientSecret, s.id, async () => {
      const report = await strandedRound();
      expect(report.stillUnknown).toHaveLength(1);
      expect(await statusOf('checkout_sessions', s.id)).toBe('pending');
    })) as Challenge;
    expect(challenge.status).toBe('challenge');
    // Not left `pending` beside an attempt in `challenge`, which no resolver looks up: the
    // session waits for its challenge, as the shopper was told.
    expect(await statusOf('checkout_sessions', s.id)).toBe('challenge');
    expect(await statusOf('payment_attempts', s.id)).toBe('challenge');
    // A later round leaves it alone: the attempt is no longer unknown.
    expect(await strandedRound()).toEqual({ resolved: [], notHappened: [], stillUnknown: [] });

    const acs = await answerAtAcs(challenge.challengeUrl, '1234');
    expect((await postForm(acs.action, acs.fields)).status).toBe(200);
    const done = await b.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: challenge.challengeId,
        encryptedCard: await b.encryptCard(s.clientSecret, CHALLENGED),
      },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((done.body as PayResult).status).toBe('succeeded');
    expect(await statusOf('checkout_sessions', s.id)).toBe('succeeded');
  });

  it('opens no challenge for an attempt settled meanwhile: its outcome stands', async () => {
    const s = await a.createSession({ amount: 7_500 });
    const answer = await payWhile(s.clientSecret, s.id, async () => {
      // Not in the ledger (a challenge charges nothing before it is completed): declared not
      // to have happened, the session takes payments again.
      expect((await strandedRound(0)).notHappened).toHaveLength(1);
      expect(await statusOf('checkout_sessions', s.id)).toBe('open');
    });
    // Told what the store holds, not a challenge whose completion could never be taken.
    expect(answer).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
    expect(await statusOf('payment_attempts', s.id)).toBe('failed');
    expect(await statusOf('checkout_sessions', s.id)).toBe('open');
    const challenges = await store.db
      .selectFrom('challenges')
      .select('id')
      .where('session_id', '=', s.id)
      .execute();
    expect(challenges).toEqual([]);
  });
});
