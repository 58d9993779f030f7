import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
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
});

describe('createGatewayClient: time and network', () => {
  it('a gateway that never answers is a GatewayTimeoutError with sent = true', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', () => new Promise(() => {})));
    const err = await client(gw.url)
      .createCreditPayment(credit, { timeoutMs: 300 })
      .catch((e: unknown) => e);
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

  it('encodes query parameters and drops undefined ones', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/refund/list', (c) => c.json({ items: [], totalCount: 0, skip: 5, take: 20 })),
    );
    const res = await client(gw.url).listRefunds({ status: 'PENDENTE', skip: 5, take: 20 });
    expect(res.take).toBe(20);
    expect(gw.state.requests[0]!.query).toBe('?status=PENDENTE&skip=5&take=20');
  });
});
