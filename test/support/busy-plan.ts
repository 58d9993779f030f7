import type { Subscription } from '../../server/gateway/schemas';
import type { TestBff } from './bff';

/**
 * The plan's subscriptions as the BFF's gateway client lists them by name: `others` others',
 * none an attempt's (pages of 100), so that its proof reads `others / 100` pages
 * (payments/plan-proof.ts). `pagesAsked` lists the pages read; `restore` ends it.
 */
export function busyPlan(on: TestBff, planId: string, others: number) {
  const gateway = on.bff.ctx.gateway;
  const search = gateway.searchSubscriptions.bind(gateway);
  const pagesAsked: number[] = [];
  gateway.searchSubscriptions = (q = {}, o) => {
    if (!q.planName) return search(q, o);
    const page = Number(q.page ?? 1);
    pagesAsked.push(page);
    const start = (page - 1) * 100;
    const items = Array.from(
      { length: Math.max(0, Math.min(100, others - start)) },
      (_, i) =>
        ({
          id: `other-sub-${start + i}`,
          orderNumber: `o${start + i}`,
          createdDate: new Date().toISOString(),
          plan: { id: planId },
        }) as unknown as Subscription,
    );
    return Promise.resolve({ items, total: others, page, limit: 100 });
  };
  return { pagesAsked, restore: () => (gateway.searchSubscriptions = search) };
}
