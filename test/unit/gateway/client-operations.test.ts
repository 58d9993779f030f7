import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../server/gateway/errors';
import { GatewayProtocolError, GatewayValidationError } from '../../../server/gateway/errors';
import { startFakeGateway, type FakeGateway } from './fake-gateway';
import { BANK_SLIP_ROW, client, plan } from './fixtures';

// The gateway client's recurrence, reconciliation, bank slip and webhook operations.
let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('createGatewayClient: recurrence, reconciliation, bank slips, webhooks', () => {
  it('plan and subscription operations use the right paths, bodies and answer shapes', async () => {
    gw = await startFakeGateway((app) => {
      app.post('/v1/recurrences/plans', (c) => c.json('plan-1'));
      app.post('/v1/recurrences/plans/:id', (c) => c.json(c.req.param('id')));
      app.post('/v1/recurrences/plans/:id/status', (c) => c.json(c.req.param('id')));
      app.get('/v1/recurrences/plans', (c) =>
        c.json({ items: [plan('plan-1')], page: 1, limit: 10, total: 1 }),
      );
      app.post('/v1/recurrences/subscriptions', (c) => c.json('sub-1'));
      app.post('/v1/recurrences/subscriptions/:id/status', (c) =>
        c.json({ id: c.req.param('id') }),
      );
      app.post('/v1/recurrences/subscriptions/:id/vault', (c) => c.json({ id: c.req.param('id') }));
      app.get('/v1/recurrences/subscriptions/:id', (c) =>
        c.json({
          id: c.req.param('id'),
          vaultId: 'v1',
          orderNumber: '42',
          status: 'Blocked',
          plan: plan('plan-1'),
          createdDate: '2026-01-01T00:00:00',
        }),
      );
      app.post('/v1/recurrences/billing/:id/cancel', (c) => c.json(c.req.param('id')));
      app.get('/v1/recurrences/billing', (c) => c.json({ items: [], page: 2, limit: 5, total: 0 }));
    });
    const gc = client(gw.url);
    const body = {
      name: 'Gold',
      description: 'Gold plan',
      amount: 49.9,
      planType: 'Monthly' as const,
      paymentMethod: 'CreditCard' as const,
    };
    expect(await gc.createPlan(body)).toBe('plan-1');
    expect(await gc.updatePlan({ planId: 'a b/c', body: { ...body, merchantId: '1001' } })).toBe(
      'a b/c',
    );
    expect(await gc.setPlanStatus({ planId: 'plan-1', status: 'Inactive' })).toBe('plan-1');
    expect((await gc.searchPlans({ name: 'Gold & Co', page: 1 })).items[0]!.id).toBe('plan-1');
    expect(
      await gc.createSubscription({ vaultId: 'v1', orderNumber: '42', planId: 'plan-1' }),
    ).toBe('sub-1');
    expect(await gc.setSubscriptionStatus({ subscriptionId: 's1', status: 'Actived' })).toEqual({
      id: 's1',
    });
    expect(await gc.setSubscriptionVault({ subscriptionId: 's1', vaultId: 'v2' })).toEqual({
      id: 's1',
    });
    expect((await gc.getSubscription('s1')).status).toBe('Blocked');
    expect(await gc.cancelBilling('b1')).toBe('b1');
    expect(
      (
        await gc.searchBillings({
          status: 'Paid',
          expirationDateRangeStartDate: '2026-01-01',
          page: 2,
          limit: 5,
        })
      ).page,
    ).toBe(2);
    const seen = gw.state.requests.map((r) => `${r.method} ${r.path}${r.query}`);
    expect(seen).toEqual([
      'POST /v1/recurrences/plans',
      'POST /v1/recurrences/plans/a%20b%2Fc',
      'POST /v1/recurrences/plans/plan-1/status',
      'GET /v1/recurrences/plans?name=Gold+%26+Co&page=1',
      'POST /v1/recurrences/subscriptions',
      'POST /v1/recurrences/subscriptions/s1/status',
      'POST /v1/recurrences/subscriptions/s1/vault',
      'GET /v1/recurrences/subscriptions/s1',
      'POST /v1/recurrences/billing/b1/cancel',
      'GET /v1/recurrences/billing?status=Paid&expirationDateRangeStartDate=2026-01-01&page=2&limit=5',
    ]);
    expect(JSON.parse(gw.state.requests[2]!.body)).toEqual({ status: 'Inactive' });
    expect(JSON.parse(gw.state.requests[5]!.body)).toEqual({ status: 'Actived' });
    expect(JSON.parse(gw.state.requests[6]!.body)).toEqual({ vaultId: 'v2' });
    expect(gw.state.requests[8]!.body).toBe('');
  });

  it('reconciliation searches are POSTs with query parameters and no body', async () => {
    gw = await startFakeGateway((app) => {
      app.post('/api/transaction/concil/search-by-operation-date', (c) =>
        c.json([
          {
            transactionDate: '2026-01-01T10:00:00-03:00',
            terminal: 'T1',
            cardNumber: '400000*****2701',
            cardType: 'credit',
            cardName: 'visa',
            nsu: '123',
            codAuth: 'A1',
            installments: '3',
            amount: '100.5000',
            transactionStatus: 'A',
            transactionReference: 'order-1',
            transactionPaymentIdWeb: 'pay_1',
          },
        ]),
      );
      app.post('/api/transaction/concil/:what', (c) => c.json([]));
    });
    const gc = client(gw.url);
    const [row] = await gc.searchConcilByOperationDate({
      accountNumber: 1001,
      startDate: '2026-01-01',
      endDate: '2026-01-31',
    });
    expect(row).toMatchObject({ installments: 3, amount: 100.5 });
    await gc.searchConcilByCode({ accountNumber: '1001', nsu: '12 3' });
    await gc.searchConcilByAuthCode({ accountNumber: 1001, codAuth: 'A1', value: 10.5 });
    await gc.searchConcilByOperationDateInstallments({
      accountNumber: 1001,
      startDate: '2026-01-01',
      endDate: '2026-01-01',
    });
    await gc.searchConcilByPaymentDate({
      accountNumber: 1001,
      startDate: '2026-01-01',
      endDate: '2026-01-01',
    });
    for (const r of gw.state.requests) {
      expect(r.method).toBe('POST');
      expect(r.body).toBe('');
      expect(r.headers['content-type']).toBeUndefined();
    }
    expect(gw.state.requests.map((r) => r.query)).toEqual([
      '?accountNumber=1001&startDate=2026-01-01&endDate=2026-01-31',
      '?accountNumber=1001&nsu=12+3',
      '?accountNumber=1001&codAuth=A1&value=10.5',
      '?accountNumber=1001&startDate=2026-01-01&endDate=2026-01-01',
      '?accountNumber=1001&startDate=2026-01-01&endDate=2026-01-01',
    ]);
    expect(gw.state.tokenRequests[0]!.path).toBe('/api/authentication/login');
  });

  it('bank slip details send id_bill and id; success false is a GatewayValidationError', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/api/billissuer/information', (c) =>
        c.req.query('id') === 'good'
          ? c.json({
              id: 'good',
              value: 10,
              dueDate: '2026-02-01',
              status: 2,
              success: true,
              message: '',
            })
          : c.json({ success: false, message: 'bank slip not found' }),
      ),
    );
    const gc = client(gw.url);
    expect((await gc.getBankSlip({ accountNumber: 1001, id: 'good' })).status).toBe(2);
    const err = await gc.getBankSlip({ accountNumber: 1001, id: 'bad' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect((err as GatewayError).items).toEqual([{ tag: '', description: 'bank slip not found' }]);
    expect(gw.state.requests[0]!.query).toBe('?accountNumber=1001&id_bill=good&id=good');
  });

  it('bank slip lists parse camelCase and PascalCase rows', async () => {
    gw = await startFakeGateway((app) => {
      app.get('/api/billissuer/list/by/due-date', (c) => c.json([BANK_SLIP_ROW]));
      app.get('/api/billissuer/list/by/credit-date', (c) =>
        c.json([
          {
            Id: 's1',
            Value: 10.5,
            IssueDate: '2026-01-01',
            DueDate: '2026-01-10T00:00:00-03:00',
            PayerDocument: '12345678901',
            PayerName: 'Ana',
            PayerZipCode: '01001000',
            PayerCity: 'São Paulo',
            PayerCityState: 'SP',
            PayerStreetAndNumber: 'Rua A, 1',
            PayerNeighborhood: 'Sé',
            StatusBill: 3,
          },
        ]),
      );
      app.get('/api/billissuer/list/by/payment-date', (c) => c.json([{ id: 'x', statusBill: 7 }]));
    });
    const gc = client(gw.url);
    const range = { accountNumber: 1001, startDate: '2026-01-01', endDate: '2026-01-31' };
    expect((await gc.listBankSlipsByDueDate(range))[0]!.statusBill).toBe(2);
    expect(
      (await gc.listBankSlipsByCreditDate({ ...range, statusIntegration: 2 }))[0]!.StatusBill,
    ).toBe(3);
    await expect(gc.listBankSlipsByPaymentDate(range)).rejects.toBeInstanceOf(GatewayProtocolError);
    expect(gw.state.requests[1]!.query).toContain('statusIntegration=2');
  });

  it('webhook operations send accountNumber in the query and {url, basicAuth} in the body', async () => {
    gw = await startFakeGateway((app) => {
      app.post('/api/webhooks/subscriptions', async (c) =>
        c.json({ url: ((await c.req.json()) as { url: string }).url }),
      );
      app.get('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/h' }));
      app.delete('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/h' }));
    });
    const gc = client(gw.url);
    const basicAuth = Buffer.from('gateway:secret').toString('base64');
    expect(
      await gc.setWebhook({ accountNumber: 1001, url: 'https://m.example/h', basicAuth }),
    ).toEqual({ url: 'https://m.example/h' });
    expect(await gc.getWebhook({ accountNumber: 1001 })).toEqual({ url: 'https://m.example/h' });
    expect(await gc.deleteWebhook({ accountNumber: 1001 })).toEqual({ url: 'https://m.example/h' });
    expect(gw.state.requests.map((r) => `${r.method} ${r.query}`)).toEqual([
      'POST ?accountNumber=1001',
      'GET ?accountNumber=1001',
      'DELETE ?accountNumber=1001',
    ]);
    expect(JSON.parse(gw.state.requests[0]!.body)).toEqual({
      url: 'https://m.example/h',
      basicAuth,
    });
  });
});
