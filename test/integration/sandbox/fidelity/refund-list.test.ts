import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
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

// Cancellation request: "operationDate | date | format YYYY-MM-DD"; it is the reconciliation's
// operation date of the same sale, so a merchant can match the two.
describe('refund list: operationDate is the day the reconciliation dates the sale', () => {
  it('in São Paulo time, daylight saving time included (00:30 -02:00 on 2018-12-01)', async () => {
    const dst = await startSandbox({
      deps: { clock: new OffsetClock(0, { now: () => new Date('2018-12-01T02:30:00Z') }) },
    });
    try {
      const paid = await dst.call('POST', '/v1/payments', {
        body: creditBody(plainCardInfo(dst, '4000000000002701')),
      });
      const { paymentId, nsu } = (
        paid.body as { paymentAuthorization: { paymentId: string; nsu: string } }
      ).paymentAuthorization;
      const opened = await dst.call('POST', '/__sandbox/cancellation-requests', {
        token: null,
        body: { paymentId, description: 'x' },
      });
      expect(opened.status).toBe(201);
      const rows = await dst.call(
        'POST',
        `/api/transaction/concil/search-by-operation-date?accountNumber=1001&startDate=2018-12-01&endDate=2018-12-01`,
      );
      expect((rows.body as { nsu: string }[]).map((r) => r.nsu)).toEqual([nsu]);
      const list = await dst.call('GET', '/v1/refund/list');
      expect((list.body as { items: unknown[] }).items).toEqual([
        expect.objectContaining({ nsu, operationDate: '2018-12-01' }),
      ]);
    } finally {
      await dst.close();
    }
  });
});
