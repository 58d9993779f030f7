import { afterAll, beforeAll, expect } from 'vitest';
import type { PayBody } from '../../server/bff/checkout-api';
import { encryptWithKey, startBff, type TestBff } from './bff';

/**
 * A BFF whose gateway calls give up after 400 ms (`slow`: a sandbox latency fault makes a call
 * time out after it was sent), and a helper BFF on the same sandbox that reads the card key
 * (the slow one would time out fetching it). The slow one's token is warmed first (readyz has
 * its own, longer timeout), so only the call under test may be slow.
 */
export async function startSlowBff(): Promise<{ slow: TestBff; helper: TestBff }> {
  const helper = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  const slow = await startBff({
    config: { payRateLimitPerMinute: 10_000 },
    sandbox: helper.sandbox,
    gatewayTimeoutMs: 400,
  });
  // A loaded machine may need a second try.
  let ready = 0;
  for (let i = 0; i < 10 && ready !== 200; i++) {
    ready = (await slow.request('GET', '/readyz')).status;
    if (ready !== 200) await new Promise((r) => setTimeout(r, 500));
  }
  expect(ready).toBe(200);
  return { slow, helper };
}

/** `startSlowBff` for a whole suite: started before its tests, both closed after them. */
export function slowBffForSuite(): { readonly slow: TestBff; readonly helper: TestBff } {
  const pair = {} as { slow: TestBff; helper: TestBff };
  beforeAll(async () => {
    Object.assign(pair, await startSlowBff());
  });
  afterAll(async () => {
    await pair.slow?.close();
    await pair.helper?.close();
  });
  return pair;
}

/** A credit pay body for `secret`, sealed with the card key the helper read (`slow`'s own read would time out). */
export async function creditBody(
  pair: { slow: TestBff; helper: TestBff },
  secret: string,
  number: string,
): Promise<PayBody> {
  const key = await pair.helper.publicKey((await pair.helper.createSession()).clientSecret);
  return pair.slow.payBody(secret, number, {
    method: 'credit',
    encryptedCard: encryptWithKey(key, number),
  });
}

/** How long after the BFF gave up the sandbox answers a call `payTimingOut` delayed. */
export const LATE_ANSWER_MS = 1_200;

/**
 * Pays `number` (credit) on `secret` while the sandbox answers `path` only after the slow BFF
 * gave up (a latency fault): the pay is answered `pending`. The gateway's work ends
 * `LATE_ANSWER_MS` later. Returns the body sent.
 */
export async function payTimingOut(
  pair: { slow: TestBff; helper: TestBff },
  secret: string,
  number: string,
  path: string,
): Promise<PayBody> {
  const body = await creditBody(pair, secret, number);
  const fault = await pair.slow.sandbox.call('POST', '/__sandbox/faults', {
    token: null,
    body: { method: 'POST', path, count: 1, latencyMs: 1000 },
  });
  expect(fault.status).toBeLessThan(300);
  // Not "try again": the payment may have happened. The shopper is told it is being confirmed.
  expect((await pair.slow.pay(secret, body)).body).toEqual({ status: 'pending' });
  return body;
}
