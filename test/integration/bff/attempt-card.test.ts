import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

describe("the card's brand and last four on the merchant view (receipts)", () => {
  it('keeps the brand and last four the frame sent, never the number', async () => {
    const s = await t.createSession({ amount: 30_000, maxInstallments: 6 });
    const body = await t.payBody(s.clientSecret, '6505290000002000', {
      method: 'credit',
      installments: 3,
      brand: 'elo',
      last4: '2000',
    });
    expect((await t.pay(s.clientSecret, body)).status).toBe(200);
    const res = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    const view = res.body as {
      attempts: { brand: string | null; last4: string | null }[];
      payment: { brand: string | null; last4: string | null; installments: number };
    };
    expect(view.attempts[0]).toMatchObject({ brand: 'elo', last4: '2000' });
    expect(view.payment).toMatchObject({ brand: 'elo', last4: '2000', installments: 3 });
    expect(JSON.stringify(res.body)).not.toContain('6505290000002000');
  });

  it('refuses a last4 that is not exactly four digits, naming the field', async () => {
    const s = await t.createSession();
    for (const last4 of ['12345', '12a4', '6505290000002000']) {
      const body = await t.payBody(s.clientSecret, '4000000000002701', { last4 });
      const res = await t.pay(s.clientSecret, body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('last4');
      expect(JSON.stringify(res.body)).not.toContain('6505290000002000');
    }
  });

  it('without last4 the view says null (older frames)', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701');
    expect((await t.pay(s.clientSecret, body)).status).toBe(200);
    const res = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    expect((res.body as { attempts: { last4: string | null }[] }).attempts[0]!.last4).toBeNull();
  });
});
