import { describe, expect, it, vi } from 'vitest';
import { createDemoApp } from '../../../demo/app';
import {
  DEMO_PLAN,
  ensureDemoPlan,
  subscriptionDemo,
  type PlanGateway,
} from '../../../demo/subscription';

function gatewayWith(items: { id: string; name: string; status: string }[]) {
  const gateway = {
    searchPlans: vi.fn(async () => ({ items })),
    createPlan: vi.fn(async () => 'plan-new'),
  } satisfies PlanGateway;
  return gateway;
}

describe('ensureDemoPlan', () => {
  it('reuses the Active plan of that exact name', async () => {
    const gateway = gatewayWith([
      { id: 'plan-other', name: `${DEMO_PLAN.name} (antigo)`, status: 'Active' },
      { id: 'plan-1', name: DEMO_PLAN.name, status: 'Active' },
    ]);
    expect(await ensureDemoPlan(gateway)).toBe('plan-1');
    expect(gateway.createPlan).not.toHaveBeenCalled();
  });

  it('creates the monthly plan when none exists', async () => {
    const gateway = gatewayWith([]);
    expect(await ensureDemoPlan(gateway)).toBe('plan-new');
    expect(gateway.createPlan).toHaveBeenCalledWith({
      name: 'Clube do Café — mensal',
      description: DEMO_PLAN.description,
      amount: 39.9,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
    });
  });
});

async function render(fetchImpl: typeof fetch): Promise<string> {
  const demo = subscriptionDemo({
    planId: async () => 'plan-1',
    publicUrl: 'http://shop.test:3000',
    bffUrl: 'http://bff.test:3001',
    merchantSecret: 'sk_test_unit',
    fetch: fetchImpl,
  });
  return String(await demo.section.render());
}

describe('the console section', () => {
  it('lists subscriptions with their billings, asking the BFF with the merchant secret', async () => {
    const fetchImpl = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      Response.json({
        hasMore: false,
        data: [
          {
            id: 'sub-1',
            status: 'Active',
            sessionId: 'cs_1',
            plan: { name: 'Clube do Café — mensal', amount: 3990 },
            billings: [
              {
                id: 'b-1',
                status: 'Paid',
                amount: 3990,
                installment: 1,
                expireAt: '2026-11-23T10:00:00.000-03:00',
              },
            ],
          },
        ],
      }),
    );
    const out = await render(fetchImpl as unknown as typeof fetch);
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(String(url)).toBe('http://bff.test:3001/v1/subscriptions?limit=20');
    expect((init?.headers as Record<string, string>).authorization).toBe('Bearer sk_test_unit');
    expect(out).toContain('data-subscription-id="sub-1"');
    expect(out).toMatch(/data-status="Active"[^>]*>\s*Ativa/);
    expect(out).toMatch(/data-status="Paid"[^>]*>\s*1ª: Paga ·\s+R\$\s39,90 · 2026-11-23/);
    expect(out).not.toContain('sk_test_unit');
  });

  it('says so when the BFF cannot list them', async () => {
    const out = await render((async () => new Response('no', { status: 503 })) as typeof fetch);
    expect(out).toContain('Não foi possível listar as assinaturas.');
  });
});

describe('the subscription payment page, its session expired', () => {
  /** A BFF whose sessions are kept by id; `statuses` set by the test. */
  function bff() {
    const statuses = new Map<string, string>();
    const created: Record<string, unknown>[] = [];
    // Set by a test: the next status read waits for it (an answer arriving late).
    let held: Promise<void> | undefined;
    const holdNextRead = () => {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return release;
    };
    const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const path = new URL(req.url).pathname;
      if (req.method === 'GET' && held) {
        const wait = held;
        held = undefined;
        await wait;
      }
      if (req.method === 'POST' && path === '/v1/checkout-sessions') {
        const body = (await req.json()) as Record<string, unknown>;
        created.push(body);
        const id = `cs_${created.length}`;
        statuses.set(id, 'open');
        return Response.json(
          { id, clientSecret: `${id}_secret_x`, status: 'open', amount: 3990, currency: 'BRL' },
          { status: 201 },
        );
      }
      const id = path.split('/').pop()!;
      const status = statuses.get(id);
      return status
        ? Response.json({ id, status, amount: 3990 })
        : Response.json({ error: { message: 'no such session' } }, { status: 404 });
    };
    return { statuses, created, holdNextRead, fetch: fetchImpl as typeof fetch };
  }

  it('renews its own plan session, not the storefront cart', async () => {
    const b = bff();
    const deps = {
      publicUrl: 'http://shop.test',
      bffUrl: 'http://bff.test',
      merchantSecret: 'sk_test_unit',
      fetch: b.fetch,
      distDir: '/nonexistent',
    };
    // Mounted on the storefront as scripts/start.ts does: the cart's renew is there too.
    const demo = createDemoApp(deps);
    demo.app.route('/', subscriptionDemo({ ...deps, planId: async () => 'plan-1' }).routes);
    const started = await demo.app.request('/assinatura', { method: 'POST' });
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
    const payPage = async () =>
      (await demo.app.request('/assinatura/pagamento', { headers: { cookie } })).text();
    expect(await payPage()).toContain('session="cs_1_secret_x"');
    b.statuses.set('cs_1', 'expired');

    // What the page's script posts to when the widget says the session expired.
    const renew = /data-renew="([^"]+)"/.exec(await payPage())?.[1] ?? '/checkout/renew';
    const res = await demo.app.request(renew, {
      method: 'POST',
      headers: { cookie, origin: 'http://shop.test' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sessionId: 'cs_2', clientSecret: 'cs_2_secret_x' });
    expect(b.created[1]).toMatchObject({ planId: 'plan-1' });
    expect(b.created[1]).not.toHaveProperty('amount');
    // Reloaded, the page shows the renewed plan session.
    expect(await payPage()).toContain('session="cs_2_secret_x"');
  });

  /** A plan checkout started in one browser (cs_1), and what its page posts to renew it. */
  async function startedPlanCheckout() {
    const b = bff();
    const demo = subscriptionDemo({
      publicUrl: 'http://shop.test',
      bffUrl: 'http://bff.test',
      merchantSecret: 'sk_test_unit',
      fetch: b.fetch,
      distDir: '/nonexistent',
      planId: async () => 'plan-1',
    });
    const started = await demo.routes.request('/assinatura', { method: 'POST' });
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
    const renew = async () => {
      const res = await demo.routes.request('/assinatura/renovar', {
        method: 'POST',
        headers: { cookie, origin: 'http://shop.test' },
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    return { b, renew };
  }

  it('a plan session paid meanwhile is not renewed', async () => {
    const { b, renew } = await startedPlanCheckout();
    b.statuses.set('cs_1', 'succeeded');
    expect((await renew()).status).toBe(409);
    expect(b.created).toHaveLength(1);
  });

  it('two tabs renewing at once share one new plan session', async () => {
    const { b, renew } = await startedPlanCheckout();
    b.statuses.set('cs_1', 'expired');
    // Both frames see session_expired in the same second and post at once.
    const [one, two] = await Promise.all([renew(), renew()]);
    expect(one).toEqual({
      status: 200,
      body: { sessionId: 'cs_2', clientSecret: 'cs_2_secret_x' },
    });
    expect(two).toEqual(one);
    expect(b.created).toHaveLength(2);
    expect([...b.statuses.values()].filter((s) => s === 'open')).toHaveLength(1);
  });

  it('a renew told late that the old session ended gets the one another tab made', async () => {
    const { b, renew } = await startedPlanCheckout();
    b.statuses.set('cs_1', 'expired');
    const release = b.holdNextRead();
    const late = renew(); // its read of cs_1 is held
    const first = await renew(); // another tab renews meanwhile: cs_2
    release();
    expect((await late).body).toEqual(first.body);
    expect(first.body).toEqual({ sessionId: 'cs_2', clientSecret: 'cs_2_secret_x' });
    expect(b.created).toHaveLength(2);
  });
});
