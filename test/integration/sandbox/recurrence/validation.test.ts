import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT } from '../../../../server/sandbox/clients';
import { spDate } from '../../../../server/sandbox/reconciliation/calendar';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { billingsOf, createPlan, firstTag, gw, monthlyPlan, subscribe, vault } from './helpers';

const OTHER = {
  userName: 'other',
  password: 'other-pass',
  accountNumber: '2002',
  merchantId: '000000000002002',
};

let sb: TestSandbox;
let planId: string;
let vaultId: string;
let subId: string;
let billingId: string;

beforeAll(async () => {
  sb = await startSandbox({ deps: { clients: [DEFAULT_CLIENT, OTHER] } });
  planId = await createPlan(sb);
  vaultId = await vault(sb);
  subId = await subscribe(sb, planId, vaultId);
  billingId = (await billingsOf(sb, subId))[0]!.id;
});
afterAll(() => sb.close());

const long = 'x'.repeat(37);
const unknown = '00000000-0000-0000-0000-000000000000';

describe('every recurrence operation refuses bad input with a 4xx naming the field', () => {
  it.each([
    ['POST', '/v1/recurrences/subscriptions', { orderNumber: '1', planId: 'p' }, 400, 'vaultId'],
    [
      'POST',
      '/v1/recurrences/subscriptions',
      { vaultId: 'v', orderNumber: '12345678901', planId: 'p' },
      400,
      'orderNumber',
    ],
    [
      'POST',
      '/v1/recurrences/subscriptions',
      { vaultId: 'v', orderNumber: '1', planId: long },
      400,
      'planId',
    ],
    [
      'POST',
      '/v1/recurrences/subscriptions',
      { vaultId: 'v', orderNumber: '1', planId: unknown },
      400,
      'planId',
    ],
    ['POST', '/v1/recurrences/plans', { ...monthlyPlan, amount: 1e300 }, 400, 'amount'],
    ['POST', '/v1/recurrences/plans', { ...monthlyPlan, amount: 1e12 }, 400, 'amount'],
    ['POST', '/v1/recurrences/plans/PLAN/status', {}, 400, 'status'],
    ['POST', '/v1/recurrences/plans/PLAN/status', { status: 'Paused' }, 400, 'status'],
    [
      'POST',
      `/v1/recurrences/subscriptions/${unknown}/status`,
      { status: 'Canceled' },
      404,
      'subscriptionId',
    ],
    ['POST', '/v1/recurrences/subscriptions/SUB/status', { status: 'Active' }, 400, 'status'],
    [
      'POST',
      `/v1/recurrences/subscriptions/${long}/status`,
      { status: 'Canceled' },
      400,
      'subscriptionId',
    ],
    ['POST', '/v1/recurrences/subscriptions/SUB/vault', {}, 400, 'vaultId'],
    ['POST', '/v1/recurrences/subscriptions/SUB/vault', { vaultId: long }, 400, 'vaultId'],
    ['POST', '/v1/recurrences/subscriptions/SUB/vault', { vaultId: unknown }, 400, 'vaultId'],
    [
      'POST',
      `/v1/recurrences/subscriptions/${unknown}/vault`,
      { vaultId: 'v' },
      404,
      'subscriptionId',
    ],
    ['GET', `/v1/recurrences/subscriptions/${unknown}`, undefined, 404, 'subscriptionId'],
    ['GET', `/v1/recurrences/subscriptions/${long}`, undefined, 400, 'subscriptionId'],
    ['GET', '/v1/recurrences/subscriptions?status=Actived', undefined, 400, 'status'],
    ['GET', '/v1/recurrences/subscriptions?limit=101', undefined, 400, 'limit'],
    [
      'GET',
      '/v1/recurrences/subscriptions?planName=' + 'x'.repeat(256),
      undefined,
      400,
      'planName',
    ],
    ['GET', '/v1/recurrences/billing?status=Open', undefined, 400, 'status'],
    ['GET', '/v1/recurrences/billing?mid=abc', undefined, 400, 'mid'],
    [
      'GET',
      '/v1/recurrences/billing?expirationDateRangeStartDate=2026-13-01',
      undefined,
      400,
      'expirationDateRangeStartDate',
    ],
    [
      'GET',
      '/v1/recurrences/billing?expirationDateRangeStartDate=2026-05-02&expirationDateRangeEndDate=2026-05-01',
      undefined,
      400,
      'expirationDateRangeEndDate',
    ],
    ['POST', `/v1/recurrences/billing/${long}/cancel`, undefined, 400, 'billingId'],
    ['POST', `/v1/recurrences/billing/${unknown}/cancel`, undefined, 404, 'billingId'],
  ])('%s %s %j → %i %s', async (method, path, body, status, tag) => {
    const real = path.replace('PLAN', planId).replace('SUB', subId);
    const res = await gw(sb, method, real, body);
    expect(res.status).toBe(status);
    expect(firstTag(res.body)).toBe(tag);
    expect((res.body as { description: string }[])[0]!.description).toContain(tag);
  });

  it('answers 415 to a body that is not JSON and 400 to broken JSON', async () => {
    const form = await sb.call('POST', '/v1/recurrences/plans', {
      token: await sb.token(),
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const broken = await sb.call('POST', '/v1/recurrences/subscriptions', {
      token: await sb.token(),
      body: '{"vaultId":',
    });
    expect(broken.status).toBe(400);
  });
});

describe('billing search', () => {
  it('filters by São Paulo calendar day, inclusive, by status and by merchant', async () => {
    const [billing] = await billingsOf(sb, subId);
    const day = spDate(new Date(billing!.expireAt));
    const search = (q: string) => gw(sb, 'GET', `/v1/recurrences/billing?${q}`);
    const same = await search(
      `expirationDateRangeStartDate=${day}&expirationDateRangeEndDate=${day}&status=Paid`,
    );
    expect((same.body as { items: { id: string }[] }).items.map((b) => b.id)).toContain(billingId);
    const before = await search(`expirationDateRangeEndDate=2000-01-01`);
    expect(before.body).toMatchObject({ items: [], total: 0 });
    const mid = await search(`mid=${DEFAULT_CLIENT.merchantId}`);
    expect((mid.body as { total: number }).total).toBeGreaterThan(0);
    const otherMid = await search(`mid=${OTHER.merchantId}`);
    expect(otherMid.body).toMatchObject({ total: 0 });
    const denied = await search('status=Denied');
    expect(denied.body).toMatchObject({ total: 0 });
    // The last representable day is an open end, not a 500 (its next day is in year 10000).
    const open = await search(`expirationDateRangeEndDate=9999-12-31&status=Paid`);
    expect(open.status).toBe(200);
    expect((open.body as { items: { id: string }[] }).items.map((b) => b.id)).toContain(billingId);
  });
});

describe('scoping', () => {
  it("another client sees none of this client's plans, subscriptions or billings", async () => {
    const tokenRes = await sb.call('POST', '/api/auth/token', {
      token: null,
      body: { userName: OTHER.userName, password: OTHER.password },
    });
    const token = (tokenRes.body as { accessToken: string }).accessToken;
    const as = (method: string, path: string, body?: unknown) =>
      sb.call(method, path, { token, ...(body !== undefined ? { body } : {}) });

    expect((await as('GET', `/v1/recurrences/plans/${planId}`)).status).toBe(404);
    expect((await as('GET', `/v1/recurrences/subscriptions/${subId}`)).status).toBe(404);
    expect((await as('POST', `/v1/recurrences/billing/${billingId}/cancel`)).status).toBe(404);
    expect((await as('GET', '/v1/recurrences/plans')).body).toMatchObject({ total: 0 });
    expect((await as('GET', '/v1/recurrences/billing')).body).toMatchObject({ total: 0 });
    const sub = await as('POST', '/v1/recurrences/subscriptions', {
      planId,
      vaultId,
      orderNumber: '1',
    });
    expect(sub.status).toBe(400);
    expect(firstTag(sub.body)).toBe('planId');
    const ownPlan = await as('POST', '/v1/recurrences/plans', monthlyPlan);
    expect(ownPlan.status).toBe(200);
    const withForeignVault = await as('POST', '/v1/recurrences/subscriptions', {
      planId: ownPlan.body,
      vaultId,
      orderNumber: '1',
    });
    expect(withForeignVault.status).toBe(400);
    expect(firstTag(withForeignVault.body)).toBe('vaultId');
    const plan = await as('GET', `/v1/recurrences/plans/${ownPlan.body as string}`);
    expect(plan.body).toMatchObject({ merchantId: OTHER.merchantId, createdBy: 'other' });
  });
});
