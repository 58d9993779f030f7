import { expect } from 'vitest';
import type { PayResult } from '../../server/bff/checkout-api';
import { postForm, readForm, type HttpAnswer, type TestBff } from './bff';

/** What pay answers for a card the bank challenges. */
export type Challenge = Extract<PayResult, { status: 'challenge' }>;

/** A session of `t` whose debit pay with `card` (challenged by default) opened a challenge. */
export async function startChallenge(t: TestBff, card = '4000000000002503') {
  const s = await t.createSession({ amount: 7_500 });
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, card, { challengeWindowSize: '02' }),
  );
  expect(res.status).toBe(200);
  const challenge = res.body as Challenge;
  expect(challenge.status).toBe('challenge');
  return { s, challenge };
}

/**
 * What the challenge iframe does: GET the launcher (the fragment stays in the browser), then
 * post the fragment's secret back, which answers the auto-posting ACS form.
 */
export async function openLauncher(challengeUrl: string): Promise<HttpAnswer> {
  const url = new URL(challengeUrl);
  const boot = await fetch(url.href);
  expect(boot.status).toBe(200);
  return postForm(url.origin + url.pathname + url.search, { MD: url.hash.slice(1) });
}

/** Launcher page → ACS → OTP → the ACS answer form aimed at the TermUrl. */
export async function answerAtAcs(challengeUrl: string, otp: string) {
  const launcher = await openLauncher(challengeUrl);
  const launcherForm = readForm(launcher.text, challengeUrl);
  const otpPage = await postForm(launcherForm.action, launcherForm.fields);
  expect(otpPage.status).toBe(200);
  const otpForm = readForm(otpPage.text, launcherForm.action);
  const answer = await postForm(otpForm.action, { ...otpForm.fields, otp, action: 'submit' });
  return readForm(answer.text, otpForm.action);
}
