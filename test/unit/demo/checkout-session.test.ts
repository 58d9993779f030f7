import { describe, expect, it, vi } from 'vitest';
import { createDemoApp } from '../../../demo/app';
import { CartStore } from '../../../demo/cart';
import { openCartCheckout } from '../../../demo/checkout-session';
import type {
  MerchantClient,
  MerchantResult,
  MerchantSession,
} from '../../../demo/merchant-client';
import type { CreateSessionBody, CreatedSession } from '../../../server/bff/checkout-api';

/** A merchant client whose sessions live in a map; status set by the test. */
function fakeMerchant() {
  const statuses = new Map<string, string>();
  let n = 0;
  let failNext = 0;
  let failStatus = 0;
  // Set by a test: the next creation is answered only once released.
  let held: Promise<void> | undefined;
  const holdNextCreate = () => {
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    return release;
  };
  const createSession = vi.fn(
    async (body: CreateSessionBody, _key?: string): Promise<MerchantResult<CreatedSession>> => {
      const wait = held ?? new Promise((r) => setTimeout(r, 5));
      held = undefined;
      await wait;
      if (failNext > 0) {
        failNext -= 1;
        return { ok: false, status: failStatus, error: 'BFF unreachable or refusing' };
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
    // As the BFF: an open session ends now; an expired one answers as it is; else 409.
    expireSession: vi.fn(async (id: string): Promise<MerchantResult<MerchantSession>> => {
      const status = statuses.get(id);
      if (!status) return { ok: false, status: 404, error: 'not found' };
      if (status === 'open') statuses.set(id, 'expired');
      if (statuses.get(id) !== 'expired') return { ok: false, status: 409, error: status };
      return { ok: true, value: { id, status: 'expired' } };
    }),
  };
  /** The next creation answers `status` (0: no answer at all), having made nothing. */
  const failOnce = (status = 0) => {
    failNext = 1;
    failStatus = status;
  };
  return { merchant, createSession, statuses, holdNextCreate, failOnce };
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

  it('a refusal is final for its key: the next try has a new key and a body made again', async () => {
    const f = fakeMerchant();
    const cart = cartWith(new CartStore());
    let made = 0;
    const counted = () => ({ ...body(), metadata: { made: String(++made) } });
    for (const status of [409, 429, 503]) {
      f.failOnce(status);
      expect((await openCartCheckout(f.merchant, cart, counted)).kind).toBe('error');
    }
    f.failOnce(400);
    expect((await openCartCheckout(f.merchant, cart, counted)).kind).toBe('error');
    expect((await openCartCheckout(f.merchant, cart, counted)).kind).toBe('open');
    const calls = f.createSession.mock.calls;
    // Kept through "still running", "too many" and a 5xx; started over after the 400.
    expect(new Set(calls.slice(0, 4).map((c) => c[1])).size).toBe(1);
    expect(calls.slice(0, 4).every((c) => c[0] === calls[0]![0])).toBe(true);
    expect(calls[4]![1]).not.toBe(calls[3]![1]);
    expect(calls[4]![0]).toEqual({ ...body(), metadata: { made: '2' } });
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

describe('a cart changed after its session was made', () => {
  async function changedAfterCheckout() {
    const f = fakeMerchant();
    const store = new CartStore();
    const cart = cartWith(store);
    const first = await openCartCheckout(f.merchant, cart, body);
    if (first.kind !== 'open') throw new Error('not open');
    // Another tab still shows the first session; this one changes the cart.
    store.add(cart, 'caderno');
    return { f, cart, first: first.checkout.sessionId };
  }

  it('expires the old session at the BFF before it makes a new one', async () => {
    const { f, cart, first } = await changedAfterCheckout();
    const second = await openCartCheckout(f.merchant, cart, body);
    expect(f.merchant.expireSession).toHaveBeenCalledWith(first);
    expect(f.statuses.get(first)).toBe('expired');
    expect(second.kind === 'open' && second.checkout.sessionId).not.toBe(first);
    expect([...f.statuses.values()].filter((s) => s === 'open')).toHaveLength(1);
    // Expired once: the next checkout reuses the new session.
    expect(await openCartCheckout(f.merchant, cart, body)).toEqual(second);
    expect(f.merchant.expireSession).toHaveBeenCalledTimes(1);
  });

  it('two checkouts of the changed cart, one expire slower than the other creation: one session', async () => {
    const { f, cart } = await changedAfterCheckout();
    const expire = f.merchant.expireSession;
    let calls = 0;
    f.merchant.expireSession = vi.fn(async (id: string) => {
      calls += 1;
      // The second tab's expire answers after the first tab has made the new session.
      if (calls === 2) await new Promise((r) => setTimeout(r, 50));
      return expire(id);
    });
    const [a, b] = await Promise.all([
      openCartCheckout(f.merchant, cart, body),
      openCartCheckout(f.merchant, cart, body),
    ]);
    expect(a).toEqual(b);
    expect([...f.statuses.values()].filter((s) => s === 'open')).toHaveLength(1);
  });

  it('one paid meanwhile is the order: no second session for the cart', async () => {
    const { f, cart, first } = await changedAfterCheckout();
    f.statuses.set(first, 'succeeded');
    expect(await openCartCheckout(f.merchant, cart, body)).toEqual({
      kind: 'paid',
      sessionId: first,
    });
    expect(f.createSession).toHaveBeenCalledTimes(1);
  });

  it('one being paid, or a BFF that does not answer, leaves it without a new session', async () => {
    const { f, cart, first } = await changedAfterCheckout();
    f.statuses.set(first, 'processing');
    expect((await openCartCheckout(f.merchant, cart, body)).kind).toBe('error');
    f.merchant.expireSession = async () => ({ ok: false, status: 0, error: 'unreachable' });
    f.statuses.set(first, 'open');
    expect((await openCartCheckout(f.merchant, cart, body)).kind).toBe('error');
    expect(f.createSession).toHaveBeenCalledTimes(1);
    expect(f.statuses.get(first)).toBe('open');
  });
});

describe('a cart changed while its session is being made', () => {
  it('that session goes to no tab and is expired before the changed cart gets one', async () => {
    const f = fakeMerchant();
    const store = new CartStore();
    const cart = cartWith(store);
    const release = f.holdNextCreate();
    const before = openCartCheckout(f.merchant, cart, body); // tab 1: cs_1 on its way
    await vi.waitFor(() => expect(f.createSession).toHaveBeenCalledTimes(1));
    store.add(cart, 'caderno'); // tab 2 changes the cart and checks out
    const after = openCartCheckout(f.merchant, cart, body);
    release();
    expect(await before).toEqual({ kind: 'changed' });
    expect(await after).toMatchObject({ kind: 'open', checkout: { sessionId: 'cs_2' } });
    expect(Object.fromEntries(f.statuses)).toEqual({ cs_1: 'expired', cs_2: 'open' });
    // Expired once: the next checkout reuses cs_2.
    expect(await openCartCheckout(f.merchant, cart, body)).toEqual(await after);
    expect(f.merchant.expireSession).toHaveBeenCalledTimes(1);
  });
});

describe('the storefront, a cart changed in another tab', () => {
  function storefront() {
    const f = fakeMerchant();
    const { app, carts } = createDemoApp({
      publicUrl: 'http://shop.test',
      bffUrl: 'http://bff.test',
      merchantSecret: 'sk_test_unit',
      merchant: f.merchant,
    });
    let cookie = '';
    const post = async (path: string, form: Record<string, string> = {}) => {
      const res = await app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(form).toString(),
      });
      cookie ||= (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      return res;
    };
    const get = (path: string) => app.request(path, { headers: { cookie } });
    // What the checkout page's script posts when its session expired.
    const renew = async () => {
      const res = await app.request('/checkout/renew', {
        method: 'POST',
        headers: { origin: 'http://shop.test', cookie },
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    return { f, carts, post, get, renew };
  }

  it('leaves one session payable: the first is expired before the second is made', async () => {
    const { f, post } = storefront();
    await post('/cart/items', { productId: 'caneca' });
    await post('/checkout'); // tab 1 shows cs_1
    await post('/cart/items', { productId: 'caderno' }); // tab 2 changes the cart
    const res = await post('/checkout');
    expect(res.headers.get('location')).toBe('/checkout');
    expect(Object.fromEntries(f.statuses)).toEqual({ cs_1: 'expired', cs_2: 'open' });
  });

  it('a first session paid meanwhile: its order is shown, no second session', async () => {
    const { f, post, get } = storefront();
    await post('/cart/items', { productId: 'caneca' });
    await post('/checkout');
    await post('/cart/items', { productId: 'caderno' });
    f.statuses.set('cs_1', 'succeeded'); // tab 1 paid
    const res = await post('/checkout');
    expect(res.headers.get('location')).toBe('/order/cs_1');
    expect(f.createSession).toHaveBeenCalledTimes(1);
    // The order page empties the cart it paid for.
    await get('/order/cs_1');
    expect((await post('/checkout')).headers.get('location')).toBe('/cart');
    expect(f.createSession).toHaveBeenCalledTimes(1);
  });

  it('a renew whose session is made for the cart before it changed hands it to no one', async () => {
    const { f, post, get, renew } = storefront();
    await post('/cart/items', { productId: 'caneca' });
    await post('/checkout'); // tab 1 shows cs_1
    f.statuses.set('cs_1', 'expired'); // its widget renews: cs_2 on its way
    const release = f.holdNextCreate();
    const renewed = renew();
    await vi.waitFor(() => expect(f.createSession).toHaveBeenCalledTimes(2));
    await post('/cart/items', { productId: 'caderno' }); // tab 2 changes the cart
    const checkout = post('/checkout');
    release();
    expect((await checkout).headers.get('location')).toBe('/checkout');
    // Answered as for a changed cart: tab 1 keeps its expired session.
    expect(await renewed).toEqual({ status: 409, body: { error: 'cart' } });
    expect(Object.fromEntries(f.statuses)).toEqual({
      cs_1: 'expired',
      cs_2: 'expired',
      cs_3: 'open',
    });
    expect(await (await get('/checkout')).text()).toContain('cs_3_secret_x');
  });

  it('a checkout whose session is made for the cart before it changed shows the cart', async () => {
    const { f, post } = storefront();
    await post('/cart/items', { productId: 'caneca' });
    const release = f.holdNextCreate();
    const first = post('/checkout'); // tab 1: cs_1 on its way
    await vi.waitFor(() => expect(f.createSession).toHaveBeenCalledTimes(1));
    await post('/cart/items', { productId: 'caderno' }); // tab 2 changes the cart
    const second = post('/checkout');
    release();
    expect((await first).headers.get('location')).toBe('/cart');
    expect((await second).headers.get('location')).toBe('/checkout');
    expect(Object.fromEntries(f.statuses)).toEqual({ cs_1: 'expired', cs_2: 'open' });
  });
});
