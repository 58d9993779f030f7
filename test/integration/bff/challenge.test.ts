import { describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { MERCHANT_ORIGIN, postForm, readForm, type HttpAnswer } from '../../support/bff';
import { answerAtAcs, openLauncher } from '../../support/challenge';
import { sessionStatus, startChallenge, t, useChallengeBff } from '../../support/challenge-bff';

// The 3-D Secure challenge from pay to complete, the bank's answers, the pages and the logs.
// Also: challenge-abandoned.test.ts (canceled, closed, paid over, left behind) and
// challenge-secrets.test.ts (the launcher's secret, the kept answer, PaRes at rest).
useChallengeBff();

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
