import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../server/gateway/errors';
import {
  GatewayDeclinedError,
  GatewayInternalError,
  GatewayProtocolError,
  GatewayThreeDsError,
  GatewayValidationError,
} from '../../../server/gateway/errors';
import { startFakeGateway, type FakeGateway } from './fake-gateway';
import { authorization, client, credit, paymentRequests } from './fixtures';

// How the gateway client reads answers: approvals, declines, challenges, errors, and what it
// sends.
let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
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
