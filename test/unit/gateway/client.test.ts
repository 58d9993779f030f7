import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { BANK_SLIP_ROW } from './fixtures';
import { createGatewayClient, type GatewayClientOptions } from '../../../server/gateway/client';
import type { GatewayError } from '../../../server/gateway/errors';
import {
  GatewayDeclinedError,
  GatewayInternalError,
  GatewayNetworkError,
  GatewayProtocolError,
  GatewayThreeDsError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
  GatewayValidationError,
} from '../../../server/gateway/errors';
import type { CreditPaymentRequest } from '../../../server/gateway/schemas';
import { listen } from '../../support/servers';
import { startFakeGateway, type FakeGateway, type FakeState } from './fake-gateway';

let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const PASSWORD = 'pw';

function client(url: string, over: Partial<GatewayClientOptions> = {}) {
  return createGatewayClient({
    gatewayBaseUrl: url,
    integrationBaseUrl: url,
    credentials: { gateway: { userName: 'merchant', password: PASSWORD } },
    ...over,
  });
}

const authorization = (returnCode = '00') => ({
  paymentAuthorization: {
    returnCode,
    description: returnCode === '00' ? 'Approved' : 'Declined',
    paymentId: 'pay_1',
    authorizationCode: 'A1B2C3',
    amount: 1000,
    releaseAt: '2026-01-01T00:00:00.000Z',
  },
});

const credit: CreditPaymentRequest = {
  payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
  sellerInfo: { codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8' },
  cardInfo: { cardholderName: 'ANA SOUZA', encryptedCard: 'c2VjcmV0LWNpcGhlcnRleHQ=' },
};

const paymentRequests = (s: FakeState) => s.requests.filter((r) => r.path === '/v1/payments');

describe('createGatewayClient: tokens', () => {
  it('1,000 concurrent calls on a cold cache make one token request', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/cards/public-key', (c) => c.json({ key: 'PEM' })),
    );
    const gc = client(gw.url);
    const keys = await Promise.all(Array.from({ length: 1000 }, () => gc.getPublicKey()));
    expect(keys.every((k) => k.key === 'PEM')).toBe(true);
    expect(gw.state.tokenRequests).toHaveLength(1);
    expect(gw.state.requests).toHaveLength(1000);
  });

  it('a 401 triggers one token refresh and exactly one retry, money-moving calls included', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', (c) => c.json(authorization())));
    const gc = client(gw.url);
    await gc.getPublicKey().catch(() => undefined); // warm the token cache
    gw.revokeAll();
    const res = await gc.createCreditPayment(credit);
    expect(res.paymentAuthorization.paymentId).toBe('pay_1');
    expect(gw.state.tokenRequests).toHaveLength(2);
    const sent = paymentRequests(gw.state);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers.authorization).not.toBe(sent[1]!.headers.authorization);
    expect(sent[0]!.body).toBe(sent[1]!.body);
  });

  it('a 401 storm on 300 concurrent calls causes one token refresh', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/cards/public-key', (c) => c.json({ key: 'PEM' })),
    );
    const gc = client(gw.url);
    await gc.getPublicKey();
    gw.revokeAll();
    const keys = await Promise.all(Array.from({ length: 300 }, () => gc.getPublicKey()));
    expect(keys.every((k) => k.key === 'PEM')).toBe(true);
    expect(gw.state.tokenRequests).toHaveLength(2);
    expect(gw.state.requests).toHaveLength(1 + 300 + 300);
  });

  it('a second 401 is a GatewayUnauthorizedError: never a third attempt', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', (c) => c.json(authorization())));
    gw.state.alwaysUnauthorized = true;
    const err = await client(gw.url)
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayUnauthorizedError);
    expect((err as GatewayError).operation).toBe('createCreditPayment');
    expect(paymentRequests(gw.state)).toHaveLength(2);
    expect(gw.state.tokenRequests).toHaveLength(2);
  });

  it('refused credentials surface as GatewayUnauthorizedError and nothing is sent', async () => {
    gw = await startFakeGateway();
    const err = await client(gw.url, {
      credentials: { gateway: { userName: 'merchant', password: 'wrong-pass-9' } },
    })
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayUnauthorizedError);
    expect(gw.state.requests).toHaveLength(0);
    expect(String(err) + JSON.stringify(err)).not.toContain('wrong-pass-9');
  });
  it('uses recurrence and integration credentials and token operations per family', async () => {
    gw = await startFakeGateway((app) => {
      app.get('/v1/refund/list', (c) => c.json({ items: [], totalCount: 0, skip: 0, take: 10 }));
      app.get('/v1/recurrences/plans/:id', (c) => c.json(plan(c.req.param('id'))));
      app.get('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/hook' }));
    });
    const gc = client(gw.url, {
      credentials: {
        gateway: { userName: 'gw-user', password: PASSWORD },
        recurrence: { userName: 'rec-user', password: PASSWORD },
        integration: { userName: 'int-user', password: PASSWORD },
      },
    });
    await gc.listRefunds();
    await gc.getPlan('plan-1');
    await gc.getWebhook({ accountNumber: '1001' });
    expect(gw.state.tokenRequests).toEqual([
      { path: '/api/auth/token', userName: 'gw-user' },
      { path: '/api/auth/token', userName: 'rec-user' },
      { path: '/api/authentication/login', userName: 'int-user' },
    ]);
  });

  it('recurrence and integration fall back to the gateway credentials', async () => {
    gw = await startFakeGateway((app) => {
      app.get('/v1/recurrences/plans/:id', (c) => c.json(plan(c.req.param('id'))));
      app.get('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/hook' }));
    });
    const gc = client(gw.url);
    await gc.getPlan('p');
    await gc.getWebhook({ accountNumber: '1001' });
    expect(gw.state.tokenRequests).toEqual([
      { path: '/api/auth/token', userName: 'merchant' },
      { path: '/api/authentication/login', userName: 'merchant' },
    ]);
  });
});

describe('createGatewayClient: time and network', () => {
  it('a gateway that never answers is a GatewayTimeoutError with sent = true', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', () => new Promise(() => {})));
    const gc = client(gw.url);
    await gc.getPublicKey().catch(() => undefined); // token cached: the clock is the payment's
    const err = await gc.createCreditPayment(credit, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(true);
    expect((err as GatewayTimeoutError).timeoutMs).toBe(300);
    expect(paymentRequests(gw.state)).toHaveLength(1);
  });

  it('a token operation that never answers times the call out with sent = false', async () => {
    gw = await startFakeGateway();
    gw.state.tokenHang = true;
    const err = await client(gw.url, { timeoutMs: 300 })
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(false);
    expect(gw.state.requests).toHaveLength(0);
  });

  it('a closed port is a GatewayNetworkError with sent = false', async () => {
    const server = await listen(new Hono());
    const url = server.url;
    await server.close();
    const err = await client(url)
      .getPublicKey()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect((err as GatewayNetworkError).sent).toBe(false);
  });

  it('a connection dropped after the request was sent is a GatewayNetworkError with sent = true', async () => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments', (c) => {
        const req = (c.env as { incoming?: { socket?: { destroy(): void } } }).incoming;
        req?.socket?.destroy();
        return new Promise(() => {});
      }),
    );
    const err = await client(gw.url)
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect((err as GatewayNetworkError).sent).toBe(true);
  });
});

describe('createGatewayClient: answers', () => {
  it.each([
    [400, [{ tag: '3DS Fail', description: 'eci 07' }], GatewayThreeDsError],
    [
      400,
      [{ tag: 'payment.amount', description: 'payment.amount: too big' }],
      GatewayValidationError,
    ],
    [404, [{ tag: 'path', description: 'no route' }], GatewayValidationError],
    [500, [{ tag: '', description: 'unknown error' }], GatewayInternalError],
    [502, 'Bad gateway', GatewayInternalError],
  ])('%s → %o', async (status, body, cls) => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments/3ds', (c) =>
        typeof body === 'string' ? c.text(body, status as 502) : c.json(body, status as 400),
      ),
    );
    const err = await client(gw.url)
      .createDebit3dsPayment({
        payment: { transactionType: 'debit', amount: 1, productType: 'debito', installments: 1 },
        sellerInfo: {
          codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8',
          code3DS: 'x',
          urlSite3DS: 'https://m.example',
        },
        cardInfo: { cardholderName: 'ANA', encryptedCard: 'abc' },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect((err as GatewayError).status).toBe(status);
    expect((err as GatewayError).operation).toBe('createDebit3dsPayment');
    expect((err as GatewayError).items.length).toBe(1);
  });

  it.each(['05', '51', 'N7'])(
    'a returnCode %s is thrown as GatewayDeclinedError with the answer',
    async (code) => {
      gw = await startFakeGateway((app) =>
        app.post('/v1/payments', (c) => c.json(authorization(code))),
      );
      const err = await client(gw.url)
        .createCreditPayment(credit)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayDeclinedError);
      const d = err as GatewayDeclinedError<{ paymentAuthorization: { paymentId: string } }>;
      expect(d.returnCode).toBe(code);
      expect(d.response.paymentAuthorization.paymentId).toBe('pay_1');
    },
  );

  it('a pending challenge resolves with the threeDs block', async () => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments/3ds/validate', (c) =>
        c.json({ threeDs: { status: 'PENDING_AUTHENTICATION', acsUrl: 'http://acs', pareq: 'p' } }),
      ),
    );
    const res = await client(gw.url).validate3ds({
      authenticationTransactionId: 'a',
      pares: 'p',
      payment: { transactionType: 'debit', amount: 1, productType: 'debito', installments: 1 },
      sellerInfo: {
        codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8',
        code3DS: 'x',
        urlSite3DS: 'https://m.example',
      },
      cardInfo: { cardholderName: 'ANA', encryptedCard: 'abc' },
    });
    expect(res.threeDs.status).toBe('PENDING_AUTHENTICATION');
    expect(res.paymentAuthorization).toBeUndefined();
  });

  it('a paymentAuthorization beside a pending challenge is no decline: threeDs is read first', async () => {
    // Recorded from the sandbox (DESIGN §5): every 200 of /v1/payments/3ds carries both.
    const recorded = {
      paymentAuthorization: {
        returnCode: '',
        description: 'Aguardando autenticação 3DS',
        paymentId: '17794032000001234567',
        authorizationCode: '',
        orderNumber: 'cs_abc',
        amount: 2500,
        releaseAt: '2026-05-21T12:00:00.000Z',
        status: 'PENDING_AUTHENTICATION',
      },
      threeDs: {
        status: 'PENDING_AUTHENTICATION',
        threeDsVersion: '2.2.0',
        acsUrl: 'http://localhost:4010/acs/challenge',
        pareq: 'ZmFrZS1yZWY=',
        authenticationTransactionId: '0b9f5b8e-3f7c-4c36-9a61-6f3a8f0f1d2e',
      },
    };
    gw = await startFakeGateway((app) => app.post('/v1/payments/3ds', (c) => c.json(recorded)));
    const res = await client(gw.url).createDebit3dsPayment({
      payment: { transactionType: 'debit', amount: 2500, productType: 'debito', installments: 1 },
      sellerInfo: {
        codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8',
        code3DS: 'x',
        urlSite3DS: 'https://m.example',
      },
      cardInfo: { cardholderName: 'ANA', encryptedCard: 'abc' },
    });
    expect(res.threeDs.status).toBe('PENDING_AUTHENTICATION');
    expect(res.threeDs.authenticationTransactionId).toBe(
      recorded.threeDs.authenticationTransactionId,
    );
    expect(res.paymentAuthorization?.paymentId).toBe('17794032000001234567');
  });

  it.each([
    ['a body of the wrong shape', { paymentAuthorization: { returnCode: '00' } }],
    ['a body that is not JSON', '<html>ok</html>'],
    ['an empty body', ''],
  ])('%s on a 2xx is a GatewayProtocolError', async (_what, body) => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments', (c) =>
        typeof body === 'string' ? c.body(body, 200) : c.json(body),
      ),
    );
    const err = await client(gw.url)
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayProtocolError);
    expect((err as GatewayError).status).toBe(200);
  });

  it('sends JSON, the bearer token and the idempotency key; never the token in errors', async () => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments', (c) => c.json([{ tag: 'x', description: 'refused' }], 400)),
    );
    const err = await client(gw.url)
      .createCreditPayment(credit, { idempotencyKey: 'idem-1' })
      .catch((e: unknown) => e);
    const [req] = paymentRequests(gw.state);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['idempotency-key']).toBe('idem-1');
    expect(req!.headers.authorization).toMatch(/^Bearer tok-1-merchant$/);
    expect(JSON.parse(req!.body)).toEqual(credit);
    const text = String(err) + JSON.stringify(err) + (err as Error).stack;
    expect(text).not.toContain('tok-1');
    expect(text).not.toContain(credit.cardInfo.encryptedCard!);
  });

  it.each([
    ['an empty plan id', (gc: ReturnType<typeof client>) => gc.getPlan('')],
    [
      'a 37-character subscription id',
      (gc: ReturnType<typeof client>) => gc.getSubscription('s'.repeat(37)),
    ],
    ['an empty billing id', (gc: ReturnType<typeof client>) => gc.cancelBilling('')],
  ])('%s is refused before anything is sent', async (_what, run) => {
    gw = await startFakeGateway();
    const err = await run(client(gw.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect((err as GatewayError).status).toBe(0);
    expect(gw.state.tokenRequests).toHaveLength(0);
    expect(gw.state.requests).toHaveLength(0);
  });

  it('encodes query parameters and drops undefined ones', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/refund/list', (c) => c.json({ items: [], totalCount: 0, skip: 5, take: 20 })),
    );
    const res = await client(gw.url).listRefunds({ status: 'PENDENTE', skip: 5, take: 20 });
    expect(res.take).toBe(20);
    expect(gw.state.requests[0]!.query).toBe('?status=PENDENTE&skip=5&take=20');
  });
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

function plan(id: string) {
  return {
    id,
    merchantId: '000000000001001',
    name: 'Gold',
    description: 'Gold plan',
    amount: 49.9,
    planType: 'Monthly',
    trialDays: 0,
    paymentMethod: 'CreditCard',
    interval: 30,
    installments: 0,
    status: 'Active',
    attempts: 4,
    createdDate: '2026-01-01T00:00:00.000Z',
  };
}
