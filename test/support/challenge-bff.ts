import { afterAll, beforeAll } from 'vitest';
import { MERCHANT_SECRET, startBff, type TestBff } from './bff';
import { startChallenge as sharedStartChallenge } from './challenge';

// The 3-D Secure challenge tests (test/integration/bff/challenge*.test.ts): one BFF per file.
// `t` is set by `useChallengeBff()`'s beforeAll (read it inside tests).
export let t: TestBff;

/** Starts the BFF before the file's tests and stops it after them. */
export function useChallengeBff(): void {
  beforeAll(async () => {
    t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  });
  afterAll(() => t.close());
}

/** A session of `t` whose pay with `card` (challenged by default) opened a challenge. */
export const startChallenge = (card?: string) => sharedStartChallenge(t, card);

export async function sessionStatus(id: string): Promise<string> {
  const res = await t.request('GET', `/v1/checkout-sessions/${id}`, {
    headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
  });
  return (res.body as { status: string }).status;
}
