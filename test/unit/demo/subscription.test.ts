import { describe, expect, it, vi } from 'vitest';
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
