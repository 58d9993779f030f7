import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneIdempotencyKeys } from '../../../server/bff/idempotency';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  startBff,
  type HttpAnswer,
  type TestBff,
  apiError,
} from '../../support/bff';

// `POST /v1/checkout-sessions` with Idempotency-Key: one cart, one session (issue 9 §5).
let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>, key?: string): Promise<HttpAnswer> =>
  t.request('POST', '/v1/checkout-sessions', {
    headers: {
      authorization: `Bearer ${MERCHANT_SECRET}`,
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: { origin: MERCHANT_ORIGIN, ...body },
  });

interface Created {
  id: string;
  clientSecret: string;
  status: string;
  amount: number;
  expiresAt: string;
}

const keysRows = () => t.bff.ctx.db.selectFrom('idempotency_keys').selectAll().execute();

describe('POST /v1/checkout-sessions with Idempotency-Key', () => {
  it('a replay answers the same session (and a working client secret), marked replayed', async () => {
    const body = { amount: 12_300, referenceTransaction: 'cart-1' };
    const first = await create(body, 'cart-1-session-0001');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(body, 'cart-1-session-0001');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const s = again.body as Created;
    const view = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(view.status).toBe(200);
    expect((view.body as { id: string }).id).toBe(s.id);
    // One session, and the client secret is not readable in the stored answer.
    const rows = await t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .select('id')
      .where('reference_transaction', '=', 'cart-1')
      .execute();
    expect(rows).toHaveLength(1);
    const stored = (await keysRows()).map((r) => r.response_body ?? '').join('\n');
    expect(stored).toContain(s.id);
    expect(stored).not.toContain(s.clientSecret);
    expect(stored).not.toContain(s.clientSecret.split('_secret_')[1]);
  });

  it('the same key with another body is 422; a bad key 400; no key makes a new session', async () => {
    expect((await create({ amount: 500 }, 'cart-2-session-0001')).status).toBe(201);
    const other = await create({ amount: 501 }, 'cart-2-session-0001');
    expect(other.status).toBe(422);
    expect(apiError(other)).toMatchObject({ type: 'idempotency_error', param: 'Idempotency-Key' });
    expect((await create({ amount: 500 }, 'short')).status).toBe(400);
    const a = (await create({ amount: 500 })).body as Created;
    const b = (await create({ amount: 500 })).body as Created;
    expect(a.id).not.toBe(b.id);
  });

  it('409 while the first request with the key is still running', async () => {
    const plan = await t.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Idem monthly',
        description: 'Idem monthly',
        paymentMethod: 'CreditCard',
        amount: 9.9,
        planType: 'Monthly',
      },
    });
    const planId = plan.body as string;
    // Reading the plan at the gateway is held for a second.
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'GET', path: `/v1/recurrences/plans/${planId}`, count: 1, latencyMs: 1_000 },
    });
    const first = create({ planId }, 'cart-3-session-0001');
    await new Promise((r) => setTimeout(r, 300));
    const during = await create({ planId }, 'cart-3-session-0001');
    expect(during.status).toBe(409);
    expect((await first).status).toBe(201);
    const after = await create({ planId }, 'cart-3-session-0001');
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect((after.body as Created).id).toBe(((await first).body as Created).id);
  });

  it('keys (the merchant’s and the frame’s) are kept a day, then pruned', async () => {
    const s = (await create({ amount: 700 }, 'cart-4-session-0001')).body as Created;
    const pay = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701'),
      'pay-key-cart-4-0001',
    );
    expect(pay.status).toBe(200);
    const mine = async () =>
      (await keysRows()).filter((r) =>
        ['cart-4-session-0001', 'pay-key-cart-4-0001'].includes(r.key),
      );
    expect(await mine()).toHaveLength(2);

    t.clock.advance(23 * 3_600_000);
    await pruneIdempotencyKeys(t.bff.ctx.db, t.clock.now());
    expect(await mine()).toHaveLength(2);
    t.clock.advance(2 * 3_600_000);
    expect(await pruneIdempotencyKeys(t.bff.ctx.db, t.clock.now())).toBeGreaterThanOrEqual(2);
    expect(await mine()).toEqual([]);
    // After a day the key is a new request: another body is accepted.
    const fresh = await create({ amount: 701 }, 'cart-4-session-0001');
    expect(fresh.status).toBe(201);
    expect((fresh.body as Created).id).not.toBe(s.id);
    t.clock.reset(0);
  });

  it('a key a day old that was not pruned yet is a new request, taken over in place', async () => {
    const first = (await create({ amount: 800 }, 'cart-5-session-0001')).body as Created;
    const replay = await create({ amount: 800 }, 'cart-5-session-0001');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    t.clock.advance(25 * 3_600_000);
    try {
      // No pruning ran: the old row is still there, and past its lifetime it counts for nothing.
      const later = await create({ amount: 801 }, 'cart-5-session-0001');
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect((later.body as Created).id).not.toBe(first.id);
      // The taken-over key now replays the new answer.
      const again = await create({ amount: 801 }, 'cart-5-session-0001');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((again.body as Created).id).toBe((later.body as Created).id);
      const rows = (await keysRows()).filter((r) => r.key === 'cart-5-session-0001');
      expect(rows).toHaveLength(1);
    } finally {
      t.clock.reset(0);
    }
  });

  it('a key whose first request stopped with its process is free again after 15 minutes', async () => {
    const body = { amount: 900 };
    const first = await create(body, 'cart-6-session-0001');
    expect(first.status).toBe(201);
    // As a crash after the claim leaves it: claimed, never answered.
    await t.bff.ctx.db
      .updateTable('idempotency_keys')
      .set({ state: 'pending', response_status: null, response_body: null })
      .where('key', '=', 'cart-6-session-0001')
      .execute();
    expect((await create(body, 'cart-6-session-0001')).status).toBe(409);
    t.clock.advance(14 * 60_000);
    try {
      expect((await create(body, 'cart-6-session-0001')).status).toBe(409);
      t.clock.advance(2 * 60_000);
      // Another body is still another request under a used key.
      expect((await create({ amount: 901 }, 'cart-6-session-0001')).status).toBe(422);
      const retried = await create(body, 'cart-6-session-0001');
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      // The retry's answer is the key's now.
      const again = await create(body, 'cart-6-session-0001');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((again.body as Created).id).toBe((retried.body as Created).id);
    } finally {
      t.clock.reset(0);
    }
  });
});
