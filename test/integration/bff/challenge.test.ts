import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { maintenanceRound } from '../../../server/bff/maintenance';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { endStaleChallenges } from '../../../server/bff/sessions/service';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  postForm,
  readForm,
  startBff,
  type HttpAnswer,
  type TestBff,
} from '../../support/bff';
import {
  answerAtAcs,
  openLauncher,
  startChallenge as sharedStartChallenge,
  type Challenge,
} from '../../support/challenge';

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const startChallenge = (card?: string) => sharedStartChallenge(t, card);

async function sessionStatus(id: string): Promise<string> {
  const res = await t.request('GET', `/v1/checkout-sessions/${id}`, {
    headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
  });
  return (res.body as { status: string }).status;
}

describe('3DS challenge', () => {
  it('pay → launcher → ACS OTP 1234 → TermUrl → complete with a fresh ciphertext → succeeded', async () => {
    const { s, challenge } = await startChallenge();
    expect(challenge.windowSize).toBe('02');
    // The per-challenge secret rides in the fragment only: never sent to a server or logged.
    const url = new URL(challenge.challengeUrl);
    expect(url.origin + url.pathname).toBe(`${t.url}/checkout/challenge/${challenge.challengeId}`);
    expect(url.search).toBe('');
    expect(url.hash).toMatch(/^#[0-9a-f]{40}$/);
    expect(await sessionStatus(s.id)).toBe('challenge');

    // The first page shows neither MD nor PaReq: its script posts the fragment back.
    const boot = await t.request('GET', url.pathname);
    expect(boot.status).toBe(200);
    expect(boot.text).not.toContain(url.hash.slice(1));
    expect(boot.text).not.toMatch(/PaReq|TermUrl/);
    expect(boot.headers.get('content-security-policy')).toContain("form-action 'self'");

    // The launcher page: a form to the ACS, auto-posted by a nonce'd script, a noscript button.
    const launcher = await openLauncher(challenge.challengeUrl);
    expect(launcher.status).toBe(200);
    const csp = launcher.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain(`frame-ancestors ${MERCHANT_ORIGIN}`);
    expect(csp).toContain(`form-action ${t.sandbox.url}`);
    expect(launcher.text).toContain(`<script nonce="${nonce}">`);
    expect(launcher.text).toMatch(/<noscript><button type="submit">/);
    const form = readForm(launcher.text, t.url);
    expect(form.action).toBe(`${t.sandbox.url}/acs/challenge`);
    expect(Object.keys(form.fields).sort()).toEqual(['MD', 'PaReq', 'TermUrl']);
    expect(form.fields.TermUrl).toBe(`${t.url}/checkout/challenge/${challenge.challengeId}/return`);

    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    expect(acsAnswer.action).toBe(form.fields.TermUrl);
    expect(acsAnswer.fields.MD).toBe(form.fields.MD);

    const term = await postForm(acsAnswer.action, acsAnswer.fields);
    expect(term.status).toBe(200);
    const termCsp = term.headers.get('content-security-policy') ?? '';
    const termNonce = /script-src 'nonce-([^']+)'/.exec(termCsp)?.[1];
    expect(term.text).toContain(`<script nonce="${termNonce}">`);
    expect(term.text).toContain(
      `window.parent.postMessage({"type":"challenge-answered","challengeId":"${challenge.challengeId}"}, "${MERCHANT_ORIGIN}")`,
    );

    // The ACS posting the same answer again is refused.
    const replay = await postForm(acsAnswer.action, acsAnswer.fields);
    expect(replay.status).toBe(409);
    expect(replay.text).not.toContain('postMessage');
    // Shown where it lands, in the merchant's challenge dialog (not a blank "refused" frame).
    expect(replay.headers.get('content-security-policy')).toContain(
      `frame-ancestors ${MERCHANT_ORIGIN}`,
    );
    expect(replay.headers.get('x-frame-options')).toBeNull();

    const completeBody = {
      challengeId: challenge.challengeId,
      encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
    };
    const done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: completeBody,
      headers: { 'idempotency-key': 'idem-complete-0001' },
    });
    expect(done.status).toBe(200);
    const replayed = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: completeBody,
      headers: { 'idempotency-key': 'idem-complete-0001' },
    });
    expect(replayed.body).toEqual(done.body);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      payment: { amount: 7_500, method: 'debit', installments: 1 },
    });
    expect(await sessionStatus(s.id)).toBe('succeeded');

    // Without its key, a second complete finds the challenge ended.
    const again = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: challenge.challengeId,
        encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
      },
    });
    expect(again.status).toBe(409);
    // The PaRes is not kept once used.
    const row = await t.bff.ctx.db
      .selectFrom('challenges')
      .select(['status', 'pares'])
      .where('id', '=', challenge.challengeId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'completed', pares: null });
  });

  it('a wrong OTP makes the validate call fail: three_ds_failed, retryable', async () => {
    const { s, challenge } = await startChallenge();
    // Three wrong codes exhaust the ACS; its answer then is a failure.
    let acsAnswer: { action: string; fields: Record<string, string> } | undefined;
    const launcher = await openLauncher(challenge.challengeUrl);
    const lf = readForm(launcher.text, challenge.challengeUrl);
    let page: HttpAnswer = await postForm(lf.action, lf.fields);
    for (let i = 0; i < 5 && !acsAnswer; i++) {
      const f = readForm(page.text, lf.action);
      if (f.fields.PaRes !== undefined) acsAnswer = f;
      else page = await postForm(f.action, { ...f.fields, otp: '0000', action: 'submit' });
    }
    expect(acsAnswer).toBeDefined();
    expect((await postForm(acsAnswer!.action, acsAnswer!.fields)).status).toBe(200);
    const done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: challenge.challengeId,
        encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
      },
    });
    expect(done.body).toEqual({
      status: 'failed',
      error: { code: 'three_ds_failed', retryable: true },
      attemptsLeft: 2,
    });
    expect(await sessionStatus(s.id)).toBe('open');
  });

  it('a 5xx from the validate call: pending (it may have charged), then settled from the ledger', async () => {
    const { s, challenge } = await startChallenge();
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path: '/v1/payments/3ds/validate', count: 1, status: 500 },
    });
    const done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: challenge.challengeId,
        encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
      },
    });
    // Not "try again later": the shopper is told the payment is being confirmed.
    expect(done.body).toEqual({ status: 'pending' });
    expect(await sessionStatus(s.id)).toBe('pending');
    const view = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(view.body).toMatchObject({ status: 'pending', attemptsLeft: 0 });
    // The sandbox's 500 came before it charged: no sale. A day later that is certain.
    t.clock.advance(24 * 3_600_000 + 60_000);
    const report = await resolveUnknownAttempts(t.bff.ctx, { accountNumber: '1001' });
    expect(report.notHappened).toHaveLength(1);
    expect(await sessionStatus(s.id)).toBe('expired');
    t.clock.reset(0);
  });

  it('a validate answer with no authorization is pending, then settled from the ledger', async () => {
    const { s, challenge } = await startChallenge();
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
    // The gateway charged, authenticated the shopper and answered 200 without the
    // authorization (the spec does not show validate's answer): the outcome is not known.
    const gateway = t.bff.ctx.gateway;
    const validate = gateway.validate3ds.bind(gateway);
    gateway.validate3ds = async (body, o) => {
      const { paymentAuthorization: _dropped, ...rest } = await validate(body, o);
      return rest as Awaited<ReturnType<typeof validate>>;
    };
    let done;
    try {
      done = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
        body: {
          challengeId: challenge.challengeId,
          encryptedCard: await t.encryptCard(s.clientSecret, '4000000000002503'),
        },
      });
    } finally {
      gateway.validate3ds = validate;
    }
    // Not "try again later" beside a charge: being confirmed.
    expect(done.body).toEqual({ status: 'pending' });
    expect(await sessionStatus(s.id)).toBe('pending');
    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: '1001',
      settleAfterMs: 0,
    });
    expect(report.resolved).toHaveLength(1);
    expect(await sessionStatus(s.id)).toBe('succeeded');
  });

  it('refuses a TermUrl post with a wrong MD, and complete before an answer', async () => {
    const { s, challenge } = await startChallenge();
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    const early = await t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: { challengeId: challenge.challengeId, encryptedCard: 'x' },
    });
    expect(early.status).toBe(409);
    const wrong = await postForm(acsAnswer.action, { ...acsAnswer.fields, MD: 'f'.repeat(40) });
    expect(wrong.status).toBe(403);
    const missing = await postForm(acsAnswer.action, { MD: acsAnswer.fields.MD! });
    expect(missing.status).toBe(400);
    const json = await t.request('POST', new URL(acsAnswer.action).pathname, {
      body: acsAnswer.fields,
    });
    expect(json.status).toBe(415);
    // The right answer is still accepted after the refused ones.
    expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
  });

  it('the launcher opens only with the per-challenge secret; the BFF stores only its hash', async () => {
    const { challenge } = await startChallenge();
    const url = new URL(challenge.challengeUrl);
    const secret = url.hash.slice(1);
    const target = url.origin + url.pathname;
    for (const fields of [{}, { MD: 'f'.repeat(40) }, { MD: secret.slice(0, 39) }]) {
      const refused = await postForm(target, fields);
      expect(refused.status).toBe(403);
      expect(refused.text).not.toMatch(/PaReq|TermUrl/);
    }
    const row = await t.bff.ctx.db
      .selectFrom('challenges')
      .select(['md', 'pareq'])
      .where('id', '=', challenge.challengeId)
      .executeTakeFirstOrThrow();
    expect(row.md).not.toBe(secret);
    expect(row.md).toMatch(/^[0-9a-f]{64}$/);
    // Without the secret nobody can burn the attempt with a junk PaRes at the TermUrl.
    const junk = await postForm(`${target}/return`, { PaRes: 'junk', MD: 'f'.repeat(40) });
    expect(junk.status).toBe(403);
    expect(junk.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const launcher = await openLauncher(challenge.challengeUrl);
    expect(readForm(launcher.text, t.url).fields).toMatchObject({ MD: secret, PaReq: row.pareq });
    // The secret never reaches a log (it is in no URL the BFF sees).
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('the kept answer of a challenged pay holds no secret; its replay gets it again', async () => {
    const s = await t.createSession({ amount: 7_800 });
    const body = await t.payBody(s.clientSecret, '4000000000002503', { challengeWindowSize: '02' });
    const send = () =>
      t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
        body,
        headers: { 'idempotency-key': 'idem-challenge-kept-1' },
      });
    const first = await send();
    const challenge = first.body as Challenge;
    expect(challenge.status).toBe('challenge');
    const secret = new URL(challenge.challengeUrl).hash.slice(1);
    expect(secret).toMatch(/^[0-9a-f]{40}$/);
    const kept = await t.bff.ctx.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('session_id', '=', s.id)
      .execute();
    expect(kept).toHaveLength(1);
    expect(kept[0]!.response_body).toContain(challenge.challengeId);
    expect(kept[0]!.response_body).not.toContain(secret);
    // The same request again (a lost answer): the same challenge, the secret with it.
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

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

  it('the public session names the bank step waiting, and whether the bank answered', async () => {
    const { s, challenge } = await startChallenge();
    const before = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(before.body).toMatchObject({
      status: 'challenge',
      challenge: {
        challengeId: challenge.challengeId,
        challengeUrl: challenge.challengeUrl,
        windowSize: '02',
        answered: false,
      },
    });
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    await postForm(acsAnswer.action, acsAnswer.fields);
    const after = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(after.body).toMatchObject({ challenge: { answered: true } });
    // Reopening after a reload: the launcher page still starts the bank step while pending.
    const other = await startChallenge();
    expect((await fetch(other.challenge.challengeUrl)).status).toBe(200);
    expect((await fetch(other.challenge.challengeUrl)).status).toBe(200);
    const open = await t.createSession();
    const none = await t.frame(open.clientSecret, 'GET', '/checkout/api/session');
    expect(none.body).not.toHaveProperty('challenge');
  });

  it("the challenge pages speak the shopper's language, carried by the locale parameter", async () => {
    const { challenge } = await startChallenge();
    const u = new URL(challenge.challengeUrl);
    u.searchParams.set('locale', 'en');
    const url = u.href;
    const boot = await (await fetch(url)).text();
    expect(boot).toContain('<html lang="en">');
    const html = (await openLauncher(url)).text;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Taking you to your card issuer');
    const form = readForm(html, url);
    expect(new URL(form.fields.TermUrl!).searchParams.get('locale')).toBe('en');
    const otpPage = await postForm(form.action, form.fields);
    const otpForm = readForm(otpPage.text, form.action);
    const answer = await postForm(otpForm.action, {
      ...otpForm.fields,
      otp: '1234',
      action: 'submit',
    });
    const acsAnswer = readForm(answer.text, otpForm.action);
    const term = await postForm(acsAnswer.action, acsAnswer.fields);
    expect(term.text).toContain('<html lang="en">');
    expect(term.text).toContain('Authentication complete');
    const again = await postForm(acsAnswer.action, acsAnswer.fields);
    expect(again.status).toBe(409);
    expect(again.text).toContain('This authentication was already answered.');
    u.searchParams.set('locale', 'pt-BR');
    const ended = await fetch(u.href);
    expect(ended.status).toBe(410);
    expect(await ended.text()).toContain('Esta autenticação já terminou.');
    const unknown = await fetch(`${t.url}/checkout/challenge/ch_nope`);
    expect(await unknown.text()).toContain('Esta autenticação não existe.');
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

  it('logs hold no PaRes, MD or ciphertext', async () => {
    const { challenge } = await startChallenge();
    const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
    await postForm(acsAnswer.action, acsAnswer.fields);
    const all = t.logs.join('\n');
    expect(all).toContain(challenge.challengeId);
    expect(all).not.toContain(acsAnswer.fields.PaRes!);
    expect(all).not.toContain(acsAnswer.fields.MD!);
    expect(all).not.toContain('4000000000002503');
  });
});

describe('PaRes at rest', () => {
  it('leaves no copy of a used PaRes in the SQLite files (main, WAL, shm)', async () => {
    const { mkdtempSync, readdirSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'bff-pares-'));
    const onDisk = await startBff({
      sandbox: t.sandbox,
      dbUrl: join(dir, 'bff.sqlite'),
      config: { payRateLimitPerMinute: 10_000 },
    });
    /** Whether any of the store's files holds (the start of) `pares`. */
    const onFile = (pares: string) =>
      readdirSync(dir)
        .filter((f) => f.startsWith('bff.sqlite'))
        .some((f) => readFileSync(join(dir, f)).includes(Buffer.from(pares.slice(0, 48))));
    /** A session whose challenge the bank has answered: its PaRes stored. */
    const answered = async () => {
      const s = await onDisk.createSession({ amount: 7_500 });
      const paid = await onDisk.pay(
        s.clientSecret,
        await onDisk.payBody(s.clientSecret, '4000000000002503'),
      );
      const challenge = paid.body as Challenge;
      const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
      expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
      const pares = acsAnswer.fields.PaRes!;
      // Stored while the challenge waits for the validate call (proves the scan can see it).
      expect(onFile(pares)).toBe(true);
      return { s, challenge, pares };
    };
    try {
      const used = await answered();
      const done = await onDisk.frame(
        used.s.clientSecret,
        'POST',
        '/checkout/api/challenge/complete',
        {
          body: {
            challengeId: used.challenge.challengeId,
            encryptedCard: await onDisk.encryptCard(used.s.clientSecret, '4000000000002503'),
          },
        },
      );
      expect((done.body as PayResult).status).toBe('succeeded');
      expect(onFile(used.pares)).toBe(false);

      // An answered challenge that ends otherwise: closed by the shopper.
      const closed = await answered();
      const cancel = await onDisk.frame(
        closed.s.clientSecret,
        'POST',
        '/checkout/api/challenge/cancel',
        { body: { challengeId: closed.challenge.challengeId, reason: 'closed' } },
      );
      expect(cancel.body).toMatchObject({ error: { code: 'challenge_canceled' } });
      expect(onFile(closed.pares)).toBe(false);

      // Or left past its 10 minutes, ended by the next read of its session.
      const left = await answered();
      onDisk.clock.advance(10 * 60_000 + 1000);
      const view = await onDisk.frame(left.s.clientSecret, 'GET', '/checkout/api/session');
      expect(view.body).toMatchObject({ status: 'open' });
      expect(onFile(left.pares)).toBe(false);
    } finally {
      await onDisk.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
