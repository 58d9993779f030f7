import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { createPlan, firstTag, monthlyPlan, subscribe, vault } from './helpers';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('plans', () => {
  it('creates a Monthly plan with interval and installments set by its type', async () => {
    const id = await createPlan(sb);
    const res = await sb.call('GET', `/v1/recurrences/plans/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      merchantId: '000000000001001',
      name: 'Gold monthly',
      amount: 49.9,
      planType: 'Monthly',
      trialDays: 0,
      paymentMethod: 'CreditCard',
      interval: 30,
      installments: 0,
      status: 'Active',
      attempts: 0,
      createdBy: 'sandbox',
    });
  });

  it.each([
    ['Bimonthly', 60],
    ['Quarterly', 90],
    ['Semesterly', 180],
    ['Yearly', 365],
  ])('%s bills every %i days until canceled', async (planType, interval) => {
    const id = await createPlan(sb, { ...monthlyPlan, planType });
    const res = await sb.call('GET', `/v1/recurrences/plans/${id}`);
    expect(res.body).toMatchObject({ interval, installments: 0 });
  });

  it('keeps a Custom schedule and the merchant of the token', async () => {
    const id = await createPlan(sb, {
      ...monthlyPlan,
      merchantId: '000000000001001',
      planType: 'Custom',
      interval: 20,
      installments: 3,
      attempts: 4,
      trialDays: 7,
      amount: '10.123456',
    });
    const res = await sb.call('GET', `/v1/recurrences/plans/${id}`);
    expect(res.body).toMatchObject({
      interval: 20,
      installments: 3,
      attempts: 4,
      trialDays: 7,
      amount: 10.123456,
    });
  });

  it.each([
    [{ ...monthlyPlan, name: undefined }, 'name', 'is required'],
    [{ ...monthlyPlan, name: 'x'.repeat(256) }, 'name', '255'],
    [{ ...monthlyPlan, description: 'x'.repeat(256) }, 'description', '255'],
    [{ ...monthlyPlan, amount: 0 }, 'amount', 'at least 0.01'],
    [{ ...monthlyPlan, amount: -5 }, 'amount', 'at least 0.01'],
    [{ ...monthlyPlan, amount: 1.1234567 }, 'amount', '6 decimal'],
    [{ ...monthlyPlan, amount: 1234567890123 }, 'amount', '12 integer digits'],
    [{ ...monthlyPlan, amount: undefined }, 'amount', 'is required'],
    [{ ...monthlyPlan, planType: 'Weekly' }, 'planType', 'one of'],
    [{ ...monthlyPlan, paymentMethod: 'Pix' }, 'paymentMethod', 'CreditCard'],
    [{ ...monthlyPlan, attempts: 5 }, 'attempts', 'at most 4'],
    [{ ...monthlyPlan, attempts: -1 }, 'attempts', 'at least 0'],
    [{ ...monthlyPlan, trialDays: 1.5 }, 'trialDays', 'integer'],
    [{ ...monthlyPlan, planType: 'Custom', installments: 3 }, 'interval', 'required for Custom'],
    [
      { ...monthlyPlan, planType: 'Custom', interval: 19, installments: 3 },
      'interval',
      'at least 20',
    ],
    [
      { ...monthlyPlan, planType: 'Custom', interval: 30, installments: 0 },
      'installments',
      'greater than zero',
    ],
    [{ ...monthlyPlan, merchantId: 'abc' }, 'merchantId', 'digits'],
    [{ ...monthlyPlan, intervall: 30 }, 'body', 'intervall'],
  ])('refuses a bad plan %#', async (body, tag, rule) => {
    const res = await sb.call('POST', '/v1/recurrences/plans', { body });
    expect(res.status).toBe(400);
    expect(firstTag(res.body)).toBe(tag);
    expect(JSON.stringify(res.body)).toContain(rule);
  });

  it("refuses another merchant's id with 403", async () => {
    const res = await sb.call('POST', '/v1/recurrences/plans', {
      body: { ...monthlyPlan, merchantId: '999' },
    });
    expect(res.status).toBe(403);
    expect(firstTag(res.body)).toBe('merchantId');
  });

  it('answers 404 with an error array for an unknown plan and 400 for an oversize id', async () => {
    const res = await sb.call('GET', '/v1/recurrences/plans/00000000-0000-0000-0000-000000000000');
    expect(res.status).toBe(404);
    expect(firstTag(res.body)).toBe('planId');
    const long = await sb.call('GET', `/v1/recurrences/plans/${'a'.repeat(37)}`);
    expect(long.status).toBe(400);
    expect(firstTag(long.body)).toBe('planId');
    const upd = await sb.call('POST', '/v1/recurrences/plans/nope', {
      body: { ...monthlyPlan, merchantId: '000000000001001' },
    });
    expect(upd.status).toBe(404);
    const st = await sb.call('POST', '/v1/recurrences/plans/nope/status', {
      body: { status: 'Inactive' },
    });
    expect(st.status).toBe(404);
  });

  it('needs a token', async () => {
    const res = await sb.call('GET', '/v1/recurrences/plans', { token: null });
    expect(res.status).toBe(401);
  });
});

describe('plan update rules', () => {
  const full = { ...monthlyPlan, merchantId: '000000000001001' };

  it('changes anything but the amount while Active and unused', async () => {
    const id = await createPlan(sb);
    const ok = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: { ...full, name: 'Renamed', planType: 'Custom', interval: 25, installments: 6 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(id);
    const got = await sb.call('GET', `/v1/recurrences/plans/${id}`);
    expect(got.body).toMatchObject({ name: 'Renamed', planType: 'Custom', interval: 25 });

    const amount = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: {
        ...full,
        name: 'Renamed',
        planType: 'Custom',
        interval: 25,
        installments: 6,
        amount: 99,
      },
    });
    expect(amount.status).toBe(400);
    expect(firstTag(amount.body)).toBe('amount');
    expect(JSON.stringify(amount.body)).toContain('Active');
  });

  it('changes the amount once the plan is Inactive', async () => {
    const id = await createPlan(sb);
    await sb.call('POST', `/v1/recurrences/plans/${id}/status`, { body: { status: 'Inactive' } });
    const res = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: { ...full, amount: 59.9 },
    });
    expect(res.status).toBe(200);
    const got = await sb.call('GET', `/v1/recurrences/plans/${id}`);
    expect(got.body).toMatchObject({ amount: 59.9, status: 'Inactive' });
  });

  it('allows only name and description while a subscription uses the plan', async () => {
    const id = await createPlan(sb, { ...monthlyPlan, trialDays: 30 });
    await subscribe(sb, id, await vault(sb));
    const renamed = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: { ...full, trialDays: 30, name: 'New name', description: 'New description' },
    });
    expect(renamed.status).toBe(200);
    const trial = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: { ...full, trialDays: 10 },
    });
    expect(trial.status).toBe(400);
    expect(firstTag(trial.body)).toBe('trialDays');
    expect(JSON.stringify(trial.body)).toContain('only name and description');
    const missing = await sb.call('POST', `/v1/recurrences/plans/${id}`, {
      body: { ...monthlyPlan },
    });
    expect(missing.status).toBe(400);
    expect(firstTag(missing.body)).toBe('merchantId');
  });
});

describe('plan status', () => {
  it('Inactive refuses new subscriptions; Active again accepts them; Canceled is final', async () => {
    const id = await createPlan(sb, { ...monthlyPlan, trialDays: 5 });
    const vaultId = await vault(sb);
    const set = (status: string) =>
      sb.call('POST', `/v1/recurrences/plans/${id}/status`, { body: { status } });

    const inactive = await set('Inactive');
    expect(inactive.status).toBe(200);
    expect(inactive.body).toBe(id);
    const refused = await sb.call('POST', '/v1/recurrences/subscriptions', {
      body: { planId: id, vaultId, orderNumber: '1' },
    });
    expect(refused.status).toBe(400);
    expect(firstTag(refused.body)).toBe('planId');
    expect(JSON.stringify(refused.body)).toContain('Inactive');

    expect((await set('Active')).status).toBe(200);
    const subId = await subscribe(sb, id, vaultId);

    expect((await set('Canceled')).status).toBe(200);
    const sub = await sb.call('GET', `/v1/recurrences/subscriptions/${subId}`);
    expect(sub.body).toMatchObject({ status: 'Canceled', plan: { status: 'Canceled' } });
    const back = await set('Active');
    expect(back.status).toBe(400);
    expect(JSON.stringify(back.body)).toContain('final');
    const bad = await set('Paused');
    expect(bad.status).toBe(400);
    expect(firstTag(bad.body)).toBe('status');
  });
});

describe('plan search', () => {
  it('filters by name and status, pages, orders stably and validates its query', async () => {
    const s2 = await startSandbox();
    try {
      for (const [i, name] of ['Alpha', 'beta', 'Gamma', 'alphabet'].entries()) {
        await createPlan(s2, { ...monthlyPlan, name, amount: 10 + i });
      }
      const byName = await s2.call('GET', '/v1/recurrences/plans?name=ALPHA&orderBy=name');
      expect(byName.status).toBe(200);
      expect(byName.body).toMatchObject({ page: 1, limit: 10, total: 2 });
      expect((byName.body as { items: { name: string }[] }).items.map((p) => p.name)).toEqual([
        'Alpha',
        'alphabet',
      ]);

      const paged = await s2.call('GET', '/v1/recurrences/plans?orderBy=-amount&limit=3&page=2');
      expect(paged.body).toMatchObject({ page: 2, limit: 3, total: 4 });
      expect((paged.body as { items: { amount: number }[] }).items.map((p) => p.amount)).toEqual([
        10,
      ]);

      const none = await s2.call('GET', '/v1/recurrences/plans?status=Canceled');
      expect(none.body).toMatchObject({ items: [], total: 0 });

      for (const [query, tag] of [
        ['limit=101', 'limit'],
        ['limit=0', 'limit'],
        ['page=0', 'page'],
        ['page=x', 'page'],
        ['status=Paused', 'status'],
      ] as const) {
        const res = await s2.call('GET', `/v1/recurrences/plans?${query}`);
        expect(res.status, query).toBe(400);
        if (tag) expect(firstTag(res.body)).toBe(tag);
      }
    } finally {
      await s2.close();
    }
  });
});
