import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { creditBody, plainCardInfo } from '../payment-helpers';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

// Spec, cancellation request: "amount | decimal | total transaction amount".
describe('refund list: amount is the total transaction amount', () => {
  it('a partial request lists the transaction total; its own amount is requestedAmount', async () => {
    const paid = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000002701'), {
        amount: 12_345,
        productType: 'lojista',
        installments: 3,
      }),
    });
    const paymentId = (paid.body as { paymentAuthorization: { paymentId: string } })
      .paymentAuthorization.paymentId;
    const opened = await sb.call('POST', '/__sandbox/cancellation-requests', {
      token: null,
      body: { paymentId, amount: 2_000, description: 'parcial' },
    });
    expect(opened.status).toBe(201);
    const id = (opened.body as { id: string }).id;
    const list = await sb.call('GET', `/v1/refund/list?id=${id}`);
    expect(list.status).toBe(200);
    expect((list.body as { items: unknown[] }).items).toEqual([
      expect.objectContaining({ id, amount: 123.45, requestedAmount: 20, installments: 3 }),
    ]);
  });
});
