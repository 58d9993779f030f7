import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { payWithAnotherKey, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';

// A 4xx of the gateway that is no judgment of the card (a rate limit, an IP allowlist, a
// misrouted URL) must not tell the shopper "check the card details" nor use up an attempt.

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());
afterEach(async () => {
  vi.restoreAllMocks();
  await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
});

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

async function detail(id: string) {
  const res = await t.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant });
  return res.body as {
    status: string;
    attemptsLeft: number;
    attempts: { status: string; failureCode: string | null }[];
  };
}

async function fault(body: Record<string, unknown>): Promise<void> {
  const res = await t.sandbox.call('POST', '/__sandbox/faults', { token: null, body });
  expect(res.status).toBe(201);
}

/** A pay of a new session whose next gateway call to `path` answers `status`. */
async function payAnswered(path: '/v1/payments' | '/v1/payments/3ds', status: number) {
  const s = await t.createSession();
  const before = (await detail(s.id)).attemptsLeft;
  await fault({ method: 'POST', path, count: 1, status });
  const method = path === '/v1/payments' ? 'credit' : 'debit';
  const body = await t.payBody(s.clientSecret, '4000000000002701', { method });
  return { s, before, res: await t.pay(s.clientSecret, body) };
}

describe('pay: gateway refusals that are not about the card', () => {
  it('a 429 on the payment: try_again_later, retryable, no attempt used; the retry pays', async () => {
    const { s, before, res } = await payAnswered('/v1/payments', 429);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: before,
    });
    const d = await detail(s.id);
    expect(d.status).toBe('open');
    expect(d.attemptsLeft).toBe(before);

    const again = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect((again.body as PayResult).status).toBe('succeeded');
  });

  it('a 403 (an IP allowlist) on the 3DS payment is no card judgment either', async () => {
    const { before, res } = await payAnswered('/v1/payments/3ds', 403);
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: before,
    });
  });

  it('a 409 on the payment may have charged: the session waits, pending', async () => {
    const { s, res } = await payAnswered('/v1/payments', 409);
    expect(res.body).toEqual({ status: 'pending' });
    const d = await detail(s.id);
    expect(d.status).toBe('pending');
    expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
  });

  it('a 400 still judges the card: invalid_card, one attempt used', async () => {
    const { before, res } = await payAnswered('/v1/payments', 400);
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_card' },
      attemptsLeft: before - 1,
    });
  });
});

describe('a ciphertext the gateway cannot open', () => {
  it('drops the cached public key: the next frame load reads the key from the gateway', async () => {
    const s = await t.createSession();
    await t.publicKey(s.clientSecret); // the BFF's cache holds the key
    const getPublicKey = vi.spyOn(t.bff.ctx.gateway, 'getPublicKey');
    const cached = await t.frame(s.clientSecret, 'GET', '/checkout/api/public-key');
    expect(cached.status).toBe(200);
    expect(getPublicKey).not.toHaveBeenCalled();

    // Made with a key the gateway does not hold (as after a rotation).
    const res = await payWithAnotherKey(t, s.clientSecret);
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'invalid_card' } });

    const fresh = await t.frame(s.clientSecret, 'GET', '/checkout/api/public-key');
    expect(fresh.status).toBe(200);
    expect(getPublicKey).toHaveBeenCalledTimes(1);
  });
});

describe('plan lookups: a 404 still means "no such plan"', () => {
  it('an unknown planId is a 400 naming planId; a 429 reading it is a 503', async () => {
    const unknown = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { planId: 'no-such-plan', origin: 'http://shop.test:3000' },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('planId: no such plan');

    await fault({ method: 'GET', path: '/v1/recurrences/plans/*', count: 1, status: 429 });
    const limited = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { planId: 'no-such-plan', origin: 'http://shop.test:3000' },
    });
    expect(limited.status).toBe(503);
  });
});
