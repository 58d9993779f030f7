import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionDemo } from '../../../demo/subscription';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';

// The storefront's plan page (`/assinatura`) against the real BFF and sandbox: each browser
// gets one plan session, whatever its tabs do and whatever answer is lost on the way.
let t: TestBff;
let planId: string;
beforeAll(async () => {
  t = await startBff();
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      name: 'Clube do Café — mensal',
      description: 'café',
      amount: 39.9,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  planId = res.body as string;
});
afterAll(() => t.close());

interface Creation {
  key: string | null;
  status: number;
  id: string;
  clientSecret: string;
  replayed: boolean;
}

/** The storefront's plan routes on the test BFF; its session creations are recorded. */
function storefront() {
  const creations: Creation[] = [];
  let loseNext = false;
  let unreachable = false;
  const fetchVia = async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init);
    const creation = req.method === 'POST' && new URL(req.url).pathname === '/v1/checkout-sessions';
    if (creation && unreachable) {
      unreachable = false;
      // The BFF could not be reached: nothing was made.
      throw new TypeError('fetch failed');
    }
    const res = await fetch(req);
    if (!creation) return res;
    const body = (await res.clone().json()) as { id: string; clientSecret: string };
    creations.push({
      key: req.headers.get('idempotency-key'),
      status: res.status,
      id: body.id,
      clientSecret: body.clientSecret,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    });
    if (loseNext) {
      loseNext = false;
      // The BFF made the session; its answer never reaches the storefront.
      throw new TypeError('fetch failed');
    }
    return res;
  };
  const { routes } = subscriptionDemo({
    planId: async () => planId,
    publicUrl: MERCHANT_ORIGIN,
    bffUrl: t.url,
    merchantSecret: MERCHANT_SECRET,
    distDir: '/nonexistent',
    fetch: fetchVia as typeof fetch,
  });
  /** A browser: the plan page first (what its cookie jar keeps), then what it posts. */
  const browser = async () => {
    const page = await routes.request('/assinatura');
    expect(page.status).toBe(200);
    let cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const assinar = async () => {
      const res = await routes.request('/assinatura', { method: 'POST', headers: { cookie } });
      cookie = (res.headers.get('set-cookie') ?? cookie).split(';')[0]!;
      return res.status;
    };
    /** The client secret the payment page hands the widget. */
    const paying = async () => {
      const res = await routes.request('/assinatura/pagamento', { headers: { cookie } });
      return /session="([^"]+)"/.exec(await res.text())?.[1];
    };
    return { assinar, paying };
  };
  return {
    creations,
    browser,
    loseNext: () => (loseNext = true),
    unreachableNext: () => (unreachable = true),
  };
}

describe('the storefront’s plan sessions', () => {
  it('two tabs pressing "Assinar" together on a first visit get one plan session', async () => {
    const s = storefront();
    const b = await s.browser();
    const [one, two] = await Promise.all([b.assinar(), b.assinar()]);
    expect([one, two]).toEqual([303, 303]);
    expect(s.creations).toHaveLength(1);
    expect(s.creations[0]!.status).toBe(201);
    expect(await b.paying()).toBe(s.creations[0]!.clientSecret);
  });

  it('a creation whose answer was lost is sent again with its key: the same session', async () => {
    const s = storefront();
    const b = await s.browser();
    s.loseNext();
    expect(await b.assinar()).toBe(502);
    expect(await b.assinar()).toBe(303);
    const [lost, again] = s.creations;
    expect(lost!.key).toMatch(/^demo-/);
    expect(again).toEqual({ ...lost, replayed: true });
    expect(await b.paying()).toBe(lost!.clientSecret);
  });

  it('once its session expired, the browser gets a new one under a new key', async () => {
    const s = storefront();
    const b = await s.browser();
    expect(await b.assinar()).toBe(303);
    const first = s.creations[0]!;
    const expired = await t.request('POST', `/v1/checkout-sessions/${first.id}/expire`, {
      headers: { authorization: `Bearer ${MERCHANT_SECRET}`, 'idempotency-key': `exp-${first.id}` },
    });
    expect(expired.status).toBe(200);
    expect(await b.assinar()).toBe(303);
    expect(s.creations).toHaveLength(2);
    const second = s.creations[1]!;
    expect(second.status).toBe(201);
    expect(second.replayed).toBe(false);
    expect(second.key).not.toBe(first.key);
    expect(second.id).not.toBe(first.id);
  });

  it('a creation the BFF refused starts over: a plan replaced meanwhile is the one asked for', async () => {
    const s = storefront();
    const b = await s.browser();
    s.unreachableNext();
    expect(await b.assinar()).toBe(502);
    // The operator replaces the plan: the old one inactive, a new one what the store sells.
    const old = planId;
    const off = await t.sandbox.call('POST', `/v1/recurrences/plans/${old}/status`, {
      body: { status: 'Inactive' },
    });
    expect(off.status).toBe(200);
    const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Clube do Café — mensal 2',
        description: 'café',
        amount: 39.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
      },
    });
    expect(res.status).toBe(200);
    planId = res.body as string;
    try {
      // The body kept for the retry names the old plan: refused (400), and final for its key.
      expect(await b.assinar()).toBe(502);
      expect(s.creations.map((c) => c.status)).toEqual([400]);
      // The next try is a new creation, of the plan sold now.
      expect(await b.assinar()).toBe(303);
      expect(s.creations.map((c) => c.status)).toEqual([400, 201]);
      expect(s.creations[1]!.key).not.toBe(s.creations[0]!.key);
      expect(await b.paying()).toBe(s.creations[1]!.clientSecret);
    } finally {
      planId = old;
      await t.sandbox.call('POST', `/v1/recurrences/plans/${old}/status`, {
        body: { status: 'Active' },
      });
    }
  });
});
