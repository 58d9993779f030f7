import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { createPlan, gw, monthlyPlan, subscribe, vault } from '../recurrence/helpers';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

type Page<T> = { items: T[]; total: number };

// Plan rule 2: "For Monthly, Bimonthly, Quarterly, Semesterly and Yearly, interval and
// installments need not be sent; the service sets them from the plan type."
describe('non-Custom plans: interval and installments sent are ignored and overwritten', () => {
  it.each([
    ['Monthly', 30],
    ['Yearly', 365],
  ])('%s with interval 45 and installments 12 is created with %i / 0', async (planType, days) => {
    const id = await createPlan(sb, { ...monthlyPlan, planType, interval: 45, installments: 12 });
    const plan = await gw(sb, 'GET', `/v1/recurrences/plans/${id}`);
    expect(plan.body).toMatchObject({ planType, interval: days, installments: 0 });
  });

  it('an update sending them is accepted and overwritten too', async () => {
    const id = await createPlan(sb, { ...monthlyPlan, name: 'to update' });
    const res = await gw(sb, 'POST', `/v1/recurrences/plans/${id}`, {
      ...monthlyPlan,
      merchantId: '000000000001001',
      name: 'updated',
      planType: 'Quarterly',
      interval: 7,
      installments: 99,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const plan = await gw(sb, 'GET', `/v1/recurrences/plans/${id}`);
    expect(plan.body).toMatchObject({ name: 'updated', interval: 90, installments: 0 });
  });
});

// Endpoints: "GET /v1/recurrences/plans?name&status&orderBy&page&limit | … name and status and
// orderBy strings"; "OrderBy accepted values … : not shown".
describe('orderBy on the three searches; unknown query keys ignored', () => {
  let names: string[];
  beforeAll(async () => {
    names = ['ob-b', 'ob-c', 'ob-a'];
    const card = await vault(sb);
    let n = 0;
    for (const name of names) {
      const planId = await createPlan(sb, { ...monthlyPlan, name, amount: 10 + n });
      await subscribe(sb, planId, card, `OB-${n++}`);
    }
  });

  const plans = async (query: string) => {
    const res = await gw(sb, 'GET', `/v1/recurrences/plans?name=ob-&limit=100&${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body as Page<{ name: string }>).items.map((p) => p.name);
  };

  it('plans: a known field sorts, -field descends, an unknown one is the default order', async () => {
    expect(await plans('orderBy=name')).toEqual(['ob-a', 'ob-b', 'ob-c']);
    expect(await plans('orderBy=-name')).toEqual(['ob-c', 'ob-b', 'ob-a']);
    // Default: newest first.
    expect(await plans('orderBy=price')).toEqual(['ob-a', 'ob-c', 'ob-b']);
    expect(await plans('orderBy=')).toEqual(['ob-a', 'ob-c', 'ob-b']);
    expect(await plans('colour=red&orderBy=amount')).toEqual(['ob-b', 'ob-c', 'ob-a']);
  });

  it('subscriptions: orderBy sorts or is ignored; unknown keys are ignored', async () => {
    const subs = async (query: string) => {
      const res = await gw(sb, 'GET', `/v1/recurrences/subscriptions?limit=100&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body as Page<{ orderNumber: string }>).items.map((s) => s.orderNumber);
    };
    expect(await subs('orderBy=orderNumber')).toEqual(['OB-0', 'OB-1', 'OB-2']);
    expect(await subs('orderBy=-orderNumber&foo=bar')).toEqual(['OB-2', 'OB-1', 'OB-0']);
    expect(await subs('orderBy=name')).toEqual(['OB-2', 'OB-1', 'OB-0']);
  });

  it('billings: orderBy sorts or is ignored; unknown keys are ignored', async () => {
    const bills = async (query: string) => {
      const res = await gw(sb, 'GET', `/v1/recurrences/billing?limit=100&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body as Page<{ amount: number }>).items.map((b) => b.amount);
    };
    expect(await bills('orderBy=amount')).toEqual([10, 11, 12]);
    expect(await bills('orderBy=-amount&unknown=1')).toEqual([12, 11, 10]);
    expect(await bills('orderBy=-dueDate')).toEqual([12, 11, 10]);
  });
});
