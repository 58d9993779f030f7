import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult, PublicSession } from '../../../server/bff/checkout-api';
import { canonicalJson } from '../../../server/bff/idempotency';
import { isUniqueViolation } from '../../../server/lib/db';
import { sha256Hex } from '../../../server/lib/secrets';
import { createGatewayClient } from '../../../server/gateway/client';
import { findPayment } from '../../../server/sandbox/payments/store';
import { encryptWithKey, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { listen } from '../../support/servers';

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

async function detail(id: string) {
  const res = await t.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant });
  return res.body as {
    status: string;
    failureCode: string | null;
    attemptsLeft: number;
    attempts: {
      id: string;
      status: string;
      failureCode: string | null;
      paymentId: string | null;
    }[];
    payment: { paymentId: string; nsu: string | null } | null;
  };
}

describe('POST /checkout/api/pay', () => {
  it('debit, frictionless 3DS: succeeded, amount and reference from the session', async () => {
    const s = await t.createSession({ amount: 4321 });
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    const res = await t.pay(s.clientSecret, body);
    expect(res.status).toBe(200);
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({
      status: 'succeeded',
      payment: { amount: 4321, installments: 1, method: 'debit' },
    });
    const payment = await findPayment(t.sandbox.sandbox.ctx, result.payment.paymentId);
    const d = await detail(s.id);
    // Without a merchant reference the gateway gets the attempt id: one attempt per sale.
    expect(payment).toMatchObject({
      amount: 4321,
      transactionType: 'debit',
      referenceTransaction: d.attempts[0]!.id,
    });
    expect(d.status).toBe('succeeded');
    expect(d.payment?.paymentId).toBe(result.payment.paymentId);
    const pub = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect((pub.body as PublicSession).outcome).toEqual(result);
  });

  it('credit in 3 installments on Elo: lojista, anti-fraud code from the frame', async () => {
    const s = await t.createSession({
      amount: 30_000,
      maxInstallments: 6,
      referenceTransaction: 'order-77',
    });
    const body = await t.payBody(s.clientSecret, '6505290000002000', {
      method: 'credit',
      installments: 3,
      brand: 'elo',
      document: { type: 'cpf', number: '12345678909' },
    });
    const res = await t.pay(s.clientSecret, body);
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({
      status: 'succeeded',
      payment: { installments: 3, method: 'credit', amount: 30_000 },
    });
    const payment = await findPayment(t.sandbox.sandbox.ctx, result.payment.paymentId);
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    // The merchant's reference stays readable; the attempt id makes it name one attempt.
    expect(payment).toMatchObject({
      productType: 'lojista',
      installments: 3,
      brand: 'elo',
      referenceTransaction: `order-77/${attemptId}`,
    });
  });

  it('a merchant reference of emoji cut to fit reaches the gateway whole, as the attempt keeps it', async () => {
    // Cut to fit between two halves of an emoji, the reference was ill-formed: a UTF-8 store
    // keeps U+FFFD for the half, and the ledger's reference no longer matched the attempt's.
    const s = await t.createSession({
      amount: 1_234,
      referenceTransaction: `pedido/ção/${'😀'.repeat(16)}`,
    });
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    const result = (await t.pay(s.clientSecret, body)).body as Extract<
      PayResult,
      { status: 'succeeded' }
    >;
    expect(result.status).toBe('succeeded');
    const payment = await findPayment(t.sandbox.sandbox.ctx, result.payment.paymentId);
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    const sent = `pedido/ção/${'😀'.repeat(9)}/${attemptId}`;
    expect(payment?.referenceTransaction).toBe(sent);
    const stored = await t.bff.ctx.db
      .selectFrom('payment_attempts')
      .select('gateway_reference')
      .where('id', '=', attemptId)
      .executeTakeFirstOrThrow();
    expect(stored.gateway_reference).toBe(sent);
  });

  it('a decline returns the session to open; the next card succeeds; then pay is refused', async () => {
    const s = await t.createSession({ amount: 990 });
    const declined = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000000002', { method: 'credit' }),
    );
    expect(declined.body).toEqual({
      status: 'failed',
      error: { code: 'declined', retryable: true },
      attemptsLeft: 2,
    });
    expect((await detail(s.id)).status).toBe('open');
    const ok = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((ok.body as PayResult).status).toBe('succeeded');
    // The store itself refuses a second successful attempt for the session.
    const now = new Date().toISOString();
    const second = t.bff.ctx.db
      .insertInto('payment_attempts')
      .values({
        id: 'pa_duplicate_success',
        session_id: s.id,
        method: 'credit',
        status: 'succeeded',
        failure_code: null,
        return_code: '00',
        payment_id: 'p-dup',
        nsu: null,
        authorization_code: null,
        subscription_id: null,
        amount: 990,
        installments: 1,
        created_at: now,
        updated_at: now,
        canceled_at: null,
      })
      .execute();
    await expect(second).rejects.toSatisfy(isUniqueViolation);
    const again = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect(again.body).toEqual({
      status: 'failed',
      error: { code: 'already_paid', retryable: false },
      attemptsLeft: 0,
    });
    const d = await detail(s.id);
    expect(d.attempts.map((a) => [a.status, a.failureCode])).toEqual([
      ['declined', 'declined'],
      ['succeeded', null],
    ]);
    // The declined authorization keeps its gateway id, for the merchant's records.
    expect(d.attempts[0]?.paymentId).toEqual(expect.any(String));
    expect(d.attempts[0]?.paymentId).not.toBe(d.payment?.paymentId);
  });

  it('maps decline codes and fails the session after the attempt cap', async () => {
    const s = await t.createSession();
    const codes: unknown[] = [];
    for (const card of ['4000000000009995', '4000000000000069', '4000000000000127']) {
      const res = await t.pay(
        s.clientSecret,
        await t.payBody(s.clientSecret, card, { method: 'credit' }),
      );
      codes.push(res.body);
    }
    expect(codes).toEqual([
      { status: 'failed', error: { code: 'insufficient_funds', retryable: true }, attemptsLeft: 2 },
      { status: 'failed', error: { code: 'expired_card', retryable: true }, attemptsLeft: 1 },
      {
        status: 'failed',
        error: { code: 'attempts_exhausted', retryable: false },
        attemptsLeft: 0,
      },
    ]);
    expect(await detail(s.id)).toMatchObject({
      status: 'failed',
      failureCode: 'attempts_exhausted',
    });
    const more = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((more.body as { error: { code: string } }).error.code).toBe('attempts_exhausted');
  });

  it('3DS frictionless failure: three_ds_failed, retryable', async () => {
    const s = await t.createSession();
    const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002925'));
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'three_ds_failed', retryable: true },
      attemptsLeft: 2,
    });
  });

  it('a gateway internal error after sending: pending (it may have charged), no new pay', async () => {
    const s = await t.createSession();
    const res = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000000119', { method: 'credit' }),
    );
    expect(res.body).toEqual({ status: 'pending' });
    expect(await detail(s.id)).toMatchObject({ status: 'pending', attemptsLeft: 0 });
    const again = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect(again.status).toBe(409);
    expect(again.body).toEqual([
      {
        tag: 'payment_pending',
        description: expect.stringMatching(/^payment_pending: .*being confirmed/) as unknown,
      },
    ]);
  });

  it('the gateway unreachable (nothing sent): try_again_later, retryable, no attempt used', async () => {
    // A gateway address where nothing listens: the connection is refused, nothing was sent.
    const closed = await listen({ fetch: () => new Response('') });
    await closed.close();
    const off = await startBff({
      sandbox: t.sandbox,
      deps: {
        gateway: createGatewayClient({
          gatewayBaseUrl: closed.url,
          integrationBaseUrl: closed.url,
          credentials: { gateway: { userName: 'sandbox', password: 'sandbox' } },
          timeoutMs: 2_000,
        }),
      },
    });
    try {
      const s = await off.createSession();
      const key = await t.publicKey((await t.createSession()).clientSecret);
      const res = await off.pay(
        s.clientSecret,
        await off.payBody(s.clientSecret, '4000000000002701', {
          encryptedCard: encryptWithKey(key, '4000000000002701'),
        }),
      );
      expect(res.body).toEqual({
        status: 'failed',
        error: { code: 'try_again_later', retryable: true },
        attemptsLeft: 3,
      });
    } finally {
      await off.close();
    }
  });

  it('no answer in time after sending: attempt unknown, session pending, no retry', async () => {
    const slow = await startBff({
      config: { payRateLimitPerMinute: 10_000 },
      sandbox: t.sandbox,
      gatewayTimeoutMs: 400,
    });
    try {
      const s = await slow.createSession();
      // Encrypt with the key read through the other BFF (same sandbox client): the slow one
      // would time out generating it.
      const key = await t.publicKey((await t.createSession()).clientSecret);
      const body = await slow.payBody(s.clientSecret, '4000000000002701', {
        method: 'credit',
        encryptedCard: encryptWithKey(key, '4000000000002701'),
      });
      // Warm the token (readyz has its own, longer timeout): only the payment may be slow.
      expect((await slow.request('GET', '/readyz')).status).toBe(200);
      const fault = await t.sandbox.call('POST', '/__sandbox/faults', {
        token: null,
        body: { method: 'POST', path: '/v1/payments', count: 1, latencyMs: 1500 },
      });
      expect(fault.status).toBeLessThan(300);
      const res = await slow.pay(s.clientSecret, body);
      expect(res.body).toEqual({ status: 'pending' });
      const d = (await slow.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant }))
        .body as { status: string; attempts: { status: string }[] };
      expect(d.attempts.map((a) => a.status)).toEqual(['unknown']);
      expect(d.status).toBe('pending');
    } finally {
      await slow.close();
    }
  });

  it('refuses a method or installments the session does not offer', async () => {
    const s = await t.createSession({ methods: ['credit'], maxInstallments: 2 });
    const debit = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect(debit.status).toBe(400);
    expect((debit.body as { tag: string }[])[0]?.tag).toBe('method');
    const many = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit', installments: 3 }),
    );
    expect(many.status).toBe(400);
    expect((many.body as { tag: string }[])[0]?.tag).toBe('installments');
  });

  it('the browser cannot set the amount: an amount field is rejected', async () => {
    const s = await t.createSession({ amount: 5000 });
    const body = { ...(await t.payBody(s.clientSecret, '4000000000002701')), amount: 1 };
    const res = await t.pay(s.clientSecret, body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('amount');
    expect((await detail(s.id)).attempts).toEqual([]);
  });

  it('an expired session refuses to pay', async () => {
    const s = await t.createSession({ expiresInSeconds: 60 });
    t.clock.advance(61_000);
    const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    // Not payable any more: no tries left to show beside retryable false.
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
      attemptsLeft: 0,
    });
    const view = (await t.frame(s.clientSecret, 'GET', '/checkout/api/session'))
      .body as PublicSession;
    expect(view).toMatchObject({
      status: 'expired',
      attemptsLeft: 0,
      outcome: { error: { retryable: false }, attemptsLeft: 0 },
    });
  });
});

describe('idempotency', () => {
  it('a replay answers the stored result without a second payment', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    const first = await t.pay(s.clientSecret, body, 'idem-replay-0001');
    const second = await t.pay(s.clientSecret, body, 'idem-replay-0001');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await detail(s.id)).attempts).toHaveLength(1);
  });

  it('the same key with another body: 422', async () => {
    const s = await t.createSession();
    await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000000002', { method: 'credit' }),
      'idem-diff-0001',
    );
    const other = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701'),
      'idem-diff-0001',
    );
    expect(other.status).toBe(422);
    expect((other.body as { tag: string }[])[0]?.tag).toBe('Idempotency-Key');
  });

  it('a duplicate while the first is still running: 409', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    // The first request is mid-flight: its key is stored pending.
    await t.bff.ctx.db
      .insertInto('idempotency_keys')
      .values({
        session_id: s.id,
        scope: 'pay',
        key: 'idem-busy-0001',
        request_hash: sha256Hex(canonicalJson(body)),
        state: 'pending',
        response_status: null,
        response_body: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const dup = await t.pay(s.clientSecret, body, 'idem-busy-0001');
    expect(dup.status).toBe(409);
    expect((await detail(s.id)).attempts).toEqual([]);
  });

  it('pay requires a well-formed Idempotency-Key', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    const none = await t.frame(s.clientSecret, 'POST', '/checkout/api/pay', { body });
    expect(none.status).toBe(400);
    const short = await t.pay(s.clientSecret, body, 'abc');
    expect(short.status).toBe(400);
  });

  it('two concurrent pays with different keys: one reaches the gateway, one gets 409', async () => {
    const s = await t.createSession();
    const [a, b] = await Promise.all([
      t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701')),
      t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701')),
    ]);
    const statuses = [a.status, b.status].sort();
    const results = [a, b].filter((r) => r.status === 200).map((r) => (r.body as PayResult).status);
    // Either one waits out the other (409) or arrives after success (already_paid).
    expect(results).toContain('succeeded');
    expect(statuses[0]).toBe(200);
    const d = await detail(s.id);
    expect(d.attempts.filter((x) => x.status === 'succeeded')).toHaveLength(1);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After past the per-IP limit', async () => {
    const limited = await startBff({ config: { payRateLimitPerMinute: 2 }, sandbox: t.sandbox });
    try {
      const s = await limited.createSession();
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await limited.pay(s.clientSecret, { method: 'credit' });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([400, 400, 429]);
      limited.clock.advance(60_000);
      expect((await limited.pay(s.clientSecret, { method: 'credit' })).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('rate limit behind a proxy', () => {
  it('counts per X-Forwarded-For client when the proxy is trusted', async () => {
    const proxied = await startBff({
      config: { payRateLimitPerMinute: 1, trustProxy: ['loopback', '10.0.0.1'] },
      sandbox: t.sandbox,
    });
    try {
      const s = await proxied.createSession();
      const from = (ip: string) =>
        proxied.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
          body: { method: 'credit' },
          headers: { 'idempotency-key': 'idem-proxy-01', 'x-forwarded-for': `${ip}, 10.0.0.1` },
        });
      expect((await from('203.0.113.1')).status).toBe(400);
      expect((await from('203.0.113.2')).status).toBe(400);
      expect((await from('203.0.113.1')).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });
});

describe('logs', () => {
  it('never hold a card number, CVV, ciphertext or client secret', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    await t.pay(s.clientSecret, body);
    const all = t.logs.join('\n');
    expect(all).toContain(s.id);
    for (const secret of [
      '4000000000002701',
      '6505290000002000',
      '4000000000000002',
      body.encryptedCard,
      body.encryptedCard.slice(0, 40),
      s.clientSecret,
      MERCHANT_SECRET,
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/"securityCode"|"encryptedCard":"[^[]/);
  });
});
