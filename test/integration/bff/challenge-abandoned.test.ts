import { describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { maintenanceRound } from '../../../server/bff/maintenance';
import { endStaleChallenges } from '../../../server/bff/sessions/service';
import { MERCHANT_SECRET, postForm } from '../../support/bff';
import { answerAtAcs, type Challenge } from '../../support/challenge';
import { sessionStatus, startChallenge, t, useChallengeBff } from '../../support/challenge-bff';

// A 3-D Secure challenge that does not end with the bank's answer: canceled, closed again and
// again, paid over, outlived by its session, left by a closed tab, timed out.
useChallengeBff();

describe('3DS challenge', () => {
  it('cancel: challenge_canceled, retryable, the session open again, no attempt used', async () => {
    const { s, challenge } = await startChallenge();
    const res = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
      body: { challengeId: challenge.challengeId, reason: 'closed' },
    });
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'challenge_canceled', retryable: true },
      attemptsLeft: 3,
    });
    expect(await sessionStatus(s.id)).toBe('open');
    const launcher = await t.request('GET', new URL(challenge.challengeUrl).pathname);
    expect(launcher.status).toBe(410);
    // Another session's secret cannot touch this challenge.
    const other = await t.createSession();
    const foreign = await t.frame(other.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
      body: { challengeId: challenge.challengeId },
    });
    expect(foreign.status).toBe(404);
  });

  it('closing the dialog again and again never ends the session; a failed challenge counts', async () => {
    const s = await t.createSession({ amount: 7_500 });
    for (let i = 0; i < 4; i++) {
      const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002503'));
      const challenge = res.body as Challenge;
      const cancel = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
        body: { challengeId: challenge.challengeId, reason: 'closed' },
      });
      expect(cancel.body).toMatchObject({ attemptsLeft: 3 });
    }
    const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002370'));
    const challenge = res.body as Challenge;
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    await postForm(acsAnswer.action, acsAnswer.fields);
    const done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: challenge.challengeId,
        encryptedCard: (await t.payBody(s.clientSecret, '4000000000002370')).encryptedCard,
      },
    });
    expect(done.body).toMatchObject({
      status: 'failed',
      error: { code: 'three_ds_failed' },
      attemptsLeft: 2,
    });
  });

  it('paying again while a challenge waits unanswered abandons it', async () => {
    const { s, challenge } = await startChallenge();
    const ok = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((ok.body as PayResult).status).toBe('succeeded');
    const detail = await t.request('GET', `/v1/checkout-sessions/${s.id}`, {
      headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
    });
    const attempts = (detail.body as { attempts: { status: string; failureCode: string }[] })
      .attempts;
    expect(attempts.map((a) => [a.status, a.failureCode])).toEqual([
      ['failed', 'challenge_canceled'],
      ['succeeded', null],
    ]);
    const launcher = await t.request('GET', new URL(challenge.challengeUrl).pathname);
    expect(launcher.status).toBe(410);
  });

  it('paying again after the session expired behind a waiting challenge is refused', async () => {
    // The session lives 5 minutes; its challenge, opened at once, 10.
    const s = await t.createSession({ amount: 7_600, expiresInSeconds: 300 });
    const first = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002503', { challengeWindowSize: '02' }),
    );
    expect((first.body as PayResult).status).toBe('challenge');
    t.clock.advance(6 * 60_000);
    try {
      // A second tab pays with a frictionless card: abandoning the challenge reopens the
      // session, whose time has run out meanwhile. No new payment.
      const again = await t.pay(
        s.clientSecret,
        await t.payBody(s.clientSecret, '4000000000002701'),
      );
      expect(again.body).toMatchObject({
        status: 'failed',
        error: { code: 'session_expired', retryable: false },
      });
      expect(await sessionStatus(s.id)).toBe('expired');
    } finally {
      t.clock.reset(0);
    }
  });

  it('a challenge left by a closed tab is ended by the maintenance round, unread', async () => {
    const s = await t.createSession({ amount: 7_700, expiresInSeconds: 300 });
    const first = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002503', { challengeWindowSize: '02' }),
    );
    expect((first.body as PayResult).status).toBe('challenge');
    // Nobody reads the session again (a read would end the challenge itself).
    const stored = () =>
      t.bff.ctx.db
        .selectFrom('checkout_sessions')
        .select('status')
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow();
    const events = async () =>
      (
        await t.bff.ctx.db
          .selectFrom('bff_events' as never)
          .select('type' as never)
          .where('session_id' as never, '=', s.id as never)
          .execute()
      ).map((e) => (e as { type: string }).type);
    t.clock.advance(11 * 60_000);
    try {
      const round = await maintenanceRound(t.bff.ctx, {
        accountNumber: '1001',
        intervalMs: 60_000,
        instance: 'bff_challenge_test',
      });
      expect(round.led).toBe(true);
      // The challenge timed out (an attempt used) and the session, past its own 5 minutes,
      // expired: the merchant is told without anyone looking.
      expect(await stored()).toEqual({ status: 'expired' });
      expect(await events()).toEqual(['checkout_session.expired']);
      expect(await endStaleChallenges(t.bff.ctx)).toBe(0);
    } finally {
      t.clock.reset(0);
    }
  });

  it('a challenge left past 10 minutes times out; the session takes a new payment', async () => {
    const { s, challenge } = await startChallenge();
    t.clock.advance(10 * 60_000 + 1000);
    const pub = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(pub.body).toMatchObject({ status: 'open', attemptsLeft: 2 });
    const done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: { challengeId: challenge.challengeId, encryptedCard: 'x' },
    });
    expect(done.body).toMatchObject({ status: 'failed', error: { code: 'challenge_timeout' } });
    const ok = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((ok.body as PayResult).status).toBe('succeeded');
  });
});
