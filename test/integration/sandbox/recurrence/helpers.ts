import { expect } from 'vitest';
import type { TestSandbox } from '../../../support/sandbox';

export const DAY_MS = 86_400_000;

/**
 * A Gateway API call with a fresh token: tokens live an hour on the sandbox clock and these
 * tests move it by days.
 */
export async function gw(
  sb: TestSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  return sb.call(method, path, {
    token: await sb.token(),
    ...(body !== undefined ? { body } : {}),
  });
}

export const monthlyPlan = {
  name: 'Gold monthly',
  description: 'Gold membership',
  amount: 49.9,
  planType: 'Monthly',
  paymentMethod: 'CreditCard',
};

/** Vaults a test card whose expiry lies years beyond the clock (tests move it a year). */
export async function vault(sb: TestSandbox, number = '4000000000002701'): Promise<string> {
  const res = await gw(sb, 'POST', '/v1/cards/vault', {
    cardInfo: {
      number,
      securityCode: '123',
      expirationMonth: '12',
      expirationYear: '39',
      cardholderName: 'ANA SILVA',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { vaultId: string }).vaultId;
}

export async function createPlan(sb: TestSandbox, body: object = monthlyPlan): Promise<string> {
  const res = await gw(sb, 'POST', '/v1/recurrences/plans', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body).toBe('string');
  return res.body as string;
}

export async function subscribe(
  sb: TestSandbox,
  planId: string,
  vaultId: string,
  orderNumber = 'ORD-1',
): Promise<string> {
  const res = await gw(sb, 'POST', '/v1/recurrences/subscriptions', {
    planId,
    vaultId,
    orderNumber,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as string;
}

export async function advanceDays(sb: TestSandbox, days: number): Promise<void> {
  const res = await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { days } });
  expect(res.status).toBe(200);
}

export interface BillingItem {
  id: string;
  status: string;
  installment: number;
  expireAt: string;
  amount: number;
  modifiedDate: string;
  subscription: { id: string; status: string; plan: { id: string } };
}

/** Every billing of one subscription, by installment. */
export async function billingsOf(sb: TestSandbox, subscriptionId: string): Promise<BillingItem[]> {
  const all: BillingItem[] = [];
  for (let page = 1; ; page++) {
    const res = await gw(
      sb,
      'GET',
      `/v1/recurrences/billing?orderBy=installment&limit=100&page=${page}`,
    );
    expect(res.status).toBe(200);
    const body = res.body as { items: BillingItem[]; total: number };
    all.push(...body.items);
    if (body.items.length < 100) break;
  }
  return all
    .filter((b) => b.subscription.id === subscriptionId)
    .sort((a, b) => a.installment - b.installment);
}

export async function subscriptionStatus(sb: TestSandbox, id: string): Promise<string> {
  const res = await gw(sb, 'GET', `/v1/recurrences/subscriptions/${id}`);
  expect(res.status).toBe(200);
  return (res.body as { status: string }).status;
}

export function firstTag(body: unknown): string | undefined {
  return (body as { tag: string }[])[0]?.tag;
}

/** `n` subscriptions of `planId` on one vaulted card, order numbers `<prefix>0…` (billed at once). */
export async function subscribeMany(
  sb: TestSandbox,
  vaultId: string,
  planId: string,
  n: number,
  prefix: string,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const made = await gw(sb, 'POST', '/v1/recurrences/subscriptions', {
      vaultId,
      planId,
      orderNumber: `${prefix}${i}`,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
  }
}
