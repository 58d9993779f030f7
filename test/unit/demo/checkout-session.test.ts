import { describe, expect, it, vi } from 'vitest';
import { CartStore } from '../../../demo/cart';
import { openCartCheckout } from '../../../demo/checkout-session';
import type { MerchantClient, MerchantResult } from '../../../demo/merchant-client';
import type { CreateSessionBody, CreatedSession } from '../../../server/bff/checkout-api';

/** A merchant client whose sessions live in a map; status set by the test. */
function fakeMerchant() {
  const statuses = new Map<string, string>();
  let n = 0;
  let failNext = 0;
  const createSession = vi.fn(
    async (body: CreateSessionBody, _key?: string): Promise<MerchantResult<CreatedSession>> => {
      await new Promise((r) => setTimeout(r, 5));
      if (failNext > 0) {
        failNext -= 1;
        return { ok: false, status: 0, error: 'BFF unreachable' };
      }
      n += 1;
      const id = `cs_${n}`;
      statuses.set(id, 'open');
      return {
        ok: true,
        value: {
          id,
          clientSecret: `${id}_secret_x`,
          status: 'open',
          amount: body.amount ?? 0,
          expiresAt: '',
        } as CreatedSession,
      };
    },
  );
  const merchant: MerchantClient = {
    createSession,
    getSession: async (id) => {
      const status = statuses.get(id);
      return status
        ? { ok: true, value: { id, status } }
        : { ok: false, status: 404, error: 'not found' };
    },
    listSessions: async () => ({ ok: true, value: [] }),
  };
  return { merchant, createSession, statuses, failOnce: () => (failNext = 1) };
}

function cartWith(store: CartStore) {
  const cart = store.create();
  store.add(cart, 'caneca');
  return cart;
}

const body = () => ({ amount: 4990, origin: 'http://shop.test' });

describe('one cart, one open session', () => {
  it('two tabs at once share one creation; later ones reuse the open session', async () => {
    const f = fakeMerchant();
    const cart = cartWith(new CartStore());
    const [a, b] = await Promise.all([
      openCartCheckout(f.merchant, cart, body),
      openCartCheckout(f.merchant, cart, body),
    ]);
    expect(f.createSession).toHaveBeenCalledTimes(1);
    expect(a).toEqual(b);
    const again = await openCartCheckout(f.merchant, cart, body);
    expect(again).toEqual(a);
    expect(f.createSession).toHaveBeenCalledTimes(1);
  });

  it('sends an Idempotency-Key, and the same key and body again after a lost answer', async () => {
    const f = fakeMerchant();
    const cart = cartWith(new CartStore());
    f.failOnce();
    expect((await openCartCheckout(f.merchant, cart, body)).kind).toBe('error');
    expect((await openCartCheckout(f.merchant, cart, body)).kind).toBe('open');
    const [first, second] = f.createSession.mock.calls;
    expect(first![1]).toMatch(/^demo-/);
    expect(second![1]).toBe(first![1]);
    expect(second![0]).toBe(first![0]);
  });

  it('a new session once the old one ended, or the cart changed', async () => {
    const f = fakeMerchant();
    const store = new CartStore();
    const cart = cartWith(store);
    const first = await openCartCheckout(f.merchant, cart, body);
    if (first.kind !== 'open') throw new Error('not open');
    f.statuses.set(first.checkout.sessionId, 'expired');
    const second = await openCartCheckout(f.merchant, cart, body);
    expect(second.kind === 'open' && second.checkout.sessionId).not.toBe(first.checkout.sessionId);
    store.add(cart, 'caderno');
    await openCartCheckout(f.merchant, cart, body);
    expect(f.createSession).toHaveBeenCalledTimes(3);
    const keys = f.createSession.mock.calls.map((c) => c[1]);
    expect(new Set(keys).size).toBe(3);
  });

  it('a session paid meanwhile (another tab) is reported, not replaced', async () => {
    const f = fakeMerchant();
    const cart = cartWith(new CartStore());
    const first = await openCartCheckout(f.merchant, cart, body);
    if (first.kind !== 'open') throw new Error('not open');
    f.statuses.set(first.checkout.sessionId, 'succeeded');
    expect(await openCartCheckout(f.merchant, cart, body)).toEqual({
      kind: 'paid',
      sessionId: first.checkout.sessionId,
    });
    expect(f.createSession).toHaveBeenCalledTimes(1);
  });
});
