import { expect } from 'vitest';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, type TestBff } from './bff';

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
  const created = (
    await t.request('POST', '/v1/checkout-sessions', {
      headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
      body: { origin: MERCHANT_ORIGIN, planId },
    })
  ).body as { id: string; clientSecret: string };
  await t.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { ...fault, count: 1 } });
  const res = await t.pay(
    created.clientSecret,
    await t.payBody(created.clientSecret, card, { method: 'credit' }),
  );
  expect(res.body).toEqual({ status: 'pending' });
  return created;
}
