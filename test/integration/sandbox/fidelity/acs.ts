import { expect } from 'vitest';
import type { TestSandbox } from '../../../support/sandbox';

export interface Challenge {
  acsUrl: string;
  pareq: string;
  authenticationTransactionId: string;
}

const TERM_URL = 'http://127.0.0.1:9/checkout/challenge/ch_1/return';

async function postForm(url: string, fields: Record<string, string>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** Answers a challenge on the sandbox's ACS pages with `otp`; resolves the PaRes. */
export async function answerChallenge(
  sb: TestSandbox,
  ch: Challenge,
  otp = '1234',
): Promise<string> {
  await postForm(ch.acsUrl, { PaReq: ch.pareq, MD: 'md', TermUrl: TERM_URL });
  const html = await postForm(`${sb.url}/acs/challenge/submit`, {
    PaReq: ch.pareq,
    otp,
    action: 'submit',
  });
  const pares = /name="PaRes" value="([^"]*)"/.exec(html)?.[1];
  expect(pares).toBeTruthy();
  return pares!;
}
