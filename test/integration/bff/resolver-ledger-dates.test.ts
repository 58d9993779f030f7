import { describe, expect, it } from 'vitest';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { encryptWithKey, MERCHANT_ORIGIN, MERCHANT_SECRET } from '../../support/bff';
import { slowBffForSuite } from '../../support/slow-bff';

/**
 * What the resolver may call proof that a payment did not happen, when the ledger it reads is
 * dated by another clock. Its own file: it moves the sandbox's business clock, which the other
 * resolver suites read by today's date.
 */
const bffs = slowBffForSuite();

/** A payment the sandbox makes after the BFF gave up on it: the attempt is unknown. */
async function lostPayment(amount: number) {
  const { slow, helper } = bffs;
  const number = '4000000000002701';
  const s = await slow.createSession({ amount });
  const key = await helper.publicKey((await helper.createSession()).clientSecret);
  const body = await slow.payBody(s.clientSecret, number, {
    method: 'credit',
    encryptedCard: encryptWithKey(key, number),
  });
  await slow.sandbox.call('POST', '/__sandbox/faults', {
    token: null,
    body: { method: 'POST', path: '/v1/payments', count: 1, latencyMs: 1000 },
  });
  expect((await slow.pay(s.clientSecret, body)).body).toEqual({ status: 'pending' });
  await new Promise((r) => setTimeout(r, 1200));
  const attemptId = (await detail(s.id)).attempts[0]!.id;
  return { sessionId: s.id, attemptId };
}

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const resolve = () =>
  resolveUnknownAttempts(bffs.slow.bff.ctx, {
    accountNumber: DEFAULT_CLIENT.accountNumber,
    settleAfterMs: 0,
  });
const detail = async (id: string) =>
  (await bffs.slow.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as {
    status: string;
    attempts: { id: string; status: string }[];
  };

describe('the resolver and the ledger it reads', () => {
  it('a sale dated by a gateway clock a month ahead of ours is found, not declared missing', async () => {
    const { slow } = bffs;
    // The sandbox's business clock moved on (a developer watching a subscription bill).
    const moved = await slow.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 30 },
    });
    expect(moved.status).toBe(200);
    const lost = await lostPayment(5_432);
    slow.clock.advance(25 * 3_600_000);
    try {
      const report = await resolve();
      expect(report.notHappened).toEqual([]);
      expect(report.resolved).toContain(lost.attemptId);
      expect((await detail(lost.sessionId)).status).toBe('succeeded');
    } finally {
      slow.clock.reset(0);
    }
  });

  it("a subscription's first billing is looked for on the gateway's day, not ours", async () => {
    const { slow } = bffs;
    // The sandbox's clock is a month ahead (the test before): so are its billings' due dates.
    const plan = await slow.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Dated monthly',
        description: 'Dated monthly',
        amount: 19.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
      },
    });
    const created = (
      await slow.request('POST', '/v1/checkout-sessions', {
        headers: merchant,
        body: { planId: plan.body as string, origin: MERCHANT_ORIGIN },
      })
    ).body as { id: string; clientSecret: string };
    // The billing search fails once after the subscription is made: the pay is pending.
    await slow.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'GET', path: '/v1/recurrences/billing', count: 1, status: 503 },
    });
    const key = await bffs.helper.publicKey((await bffs.helper.createSession()).clientSecret);
    const number = '4000000000002701';
    const paid = await slow.pay(
      created.clientSecret,
      await slow.payBody(created.clientSecret, number, {
        method: 'credit',
        encryptedCard: encryptWithKey(key, number),
      }),
    );
    expect(paid.body).toEqual({ status: 'pending' });
    // A busy account: the newest billings no longer show it; a search by due day does.
    const gateway = slow.bff.ctx.gateway;
    const search = gateway.searchBillings.bind(gateway);
    gateway.searchBillings = async (q, o) => {
      const found = await search(q, o);
      return q?.expirationDateRangeStartDate ? found : { ...found, items: [] };
    };
    try {
      await resolve();
    } finally {
      gateway.searchBillings = search;
    }
    expect((await detail(created.id)).status).toBe('succeeded');
  });
});
