import { afterAll, beforeAll, expect } from 'vitest';
import { startBff, type TestBff } from './bff';

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
