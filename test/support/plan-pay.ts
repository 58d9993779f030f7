import { expect } from 'vitest';
import type { PayResult } from '../../contract/checkout';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, type TestBff } from './bff';

/** A checkout session of `planId` (created: 201). */
export async function createPlanSession(
  t: TestBff,
  planId: string,
): Promise<{ id: string; clientSecret: string }> {
  const res = await t.request('POST', '/v1/checkout-sessions', {
    headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
    body: { origin: MERCHANT_ORIGIN, planId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; clientSecret: string };
}

/** Pays a plan session by credit with a card the gateway approves: the pay's answer. */
export async function payPlanCredit(t: TestBff, s: { clientSecret: string }): Promise<PayResult> {
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
  );
  return res.body as PayResult;
}

/** The billing search failing: a plan pay cannot read its first billing. */
export const BILLING_SEARCH_DOWN = {
  method: 'GET',
  path: '/v1/recurrences/billing',
  status: 503,
} as const;

/**
 * A session of `planId` paid with `card` while the gateway fails `fault` once: answered
 * pending. Resolves the session's id and client secret.
 */
export async function payPlanPending(
  t: TestBff,
  planId: string,
  card: string,
  fault: { method: string; path: string; status: number } = BILLING_SEARCH_DOWN,
): Promise<{ id: string; clientSecret: string }> {
  const created = await createPlanSession(t, planId);
  await t.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { ...fault, count: 1 } });
  const res = await t.pay(
    created.clientSecret,
    await t.payBody(created.clientSecret, card, { method: 'credit' }),
  );
  expect(res.body).toEqual({ status: 'pending' });
  return created;
}
