import { afterEach, describe, expect, it } from 'vitest';
import { classifyMoneyCallError } from '../../../../server/bff/payments/outcomes';
import { createGatewayClient } from '../../../../server/gateway/client';
import { GatewayDeclinedError, GatewayProtocolError } from '../../../../server/gateway/errors';
import {
  CreditPaymentResponseSchema,
  Debit3dsPaymentResponseSchema,
  TokenResponseSchema,
  type CreditPaymentRequest,
} from '../../../../server/gateway/schemas';
import { TokenManager } from '../../../../server/gateway/token-manager';
import { listen, type RunningServer } from '../../../support/servers';
import { Hono } from 'hono';
import { ManualClock, startFakeGateway, type FakeGateway } from '../fake-gateway';

// The spec's answer tables mark no field as always present. What the client cannot do without
// (a payment's returnCode, an approval's paymentId, a token's accessToken) stays required;
// the rest may be null or missing without turning an answer into a protocol error.

let gw: FakeGateway | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await gw?.close();
  await server?.close();
  gw = undefined;
  server = undefined;
});

const decline = (over: Record<string, unknown> = {}) => ({
  paymentAuthorization: {
    returnCode: '05',
    description: 'Declined',
    paymentId: 'pay_9',
    authorizationCode: null,
    amount: 1000,
    releaseAt: '2026-01-01T00:00:00.000Z',
    ...over,
  },
});

const credit: CreditPaymentRequest = {
  payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
  sellerInfo: { codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8' },
  cardInfo: { cardholderName: 'ANA SOUZA', encryptedCard: 'c2VjcmV0LWNpcGhlcnRleHQ=' },
};

describe('payment answers', () => {
  it.each([
    ['authorizationCode null', decline()],
    ['authorizationCode missing', decline({ authorizationCode: undefined })],
    [
      'only returnCode and description',
      { paymentAuthorization: { returnCode: '51', description: 'Insufficient funds' } },
    ],
    [
      'null amount, releaseAt, orderNumber, expireAt, nsu',
      decline({ amount: null, releaseAt: null, orderNumber: null, expireAt: null, nsu: null }),
    ],
  ])('a decline with %s parses', (_what, body) => {
    expect(CreditPaymentResponseSchema.safeParse(body).success).toBe(true);
  });

  it('without a returnCode an answer cannot be judged: refused', () => {
    expect(CreditPaymentResponseSchema.safeParse(decline({ returnCode: undefined })).success).toBe(
      false,
    );
  });

  it('an approval still needs its paymentId', () => {
    const ok = decline({ returnCode: '00', authorizationCode: 'A1' });
    expect(CreditPaymentResponseSchema.safeParse(ok).success).toBe(true);
    const r = CreditPaymentResponseSchema.safeParse(decline({ returnCode: '00', paymentId: null }));
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['paymentAuthorization', 'paymentId']);
  });

  it('3DS answers: null fields of threeDs and of the authorization are accepted', () => {
    const body = {
      ...decline({ authorizationCode: null }),
      threeDs: { status: 'AUTHENTICATION_SUCCESSFUL', eci: null, acsUrl: null, pareq: null },
    };
    expect(Debit3dsPaymentResponseSchema.safeParse(body).success).toBe(true);
  });

  it.each([
    ['authorizationCode null', decline()],
    ['description null too', decline({ description: null })],
  ])('a decline with %s is a decline, not an unknown outcome', async (_what, body) => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', (c) => c.json(body)));
    const gc = createGatewayClient({
      gatewayBaseUrl: gw.url,
      credentials: { gateway: { userName: 'merchant', password: 'pw' } },
    });
    try {
      const err = await gc.createCreditPayment(credit).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(GatewayProtocolError);
      expect(err).toBeInstanceOf(GatewayDeclinedError);
      expect(classifyMoneyCallError(err)).toEqual({
        kind: 'declined',
        returnCode: '05',
        ids: { paymentId: 'pay_9', authorizationCode: null, nsu: null },
      });
    } finally {
      gc.close();
    }
  });
});

describe('token answers', () => {
  const token = { authenticated: true, accessToken: 'tok', message: 'OK' };
  it.each([
    ['message null', { ...token, message: null }],
    ['no message', { authenticated: true, accessToken: 'tok' }],
    ['no created nor expiration', token],
    ['null dates', { ...token, created: null, expiration: null }],
  ])('%s parses', (_what, body) => {
    expect(TokenResponseSchema.safeParse(body).success).toBe(true);
  });

  it('a token answer without dates is used, with a short life (5 minutes)', async () => {
    let issued = 0;
    server = await listen(
      new Hono().post('/api/auth/token', (c) =>
        c.json({ authenticated: true, accessToken: `tok-${++issued}`, message: null }),
      ),
    );
    const clock = new ManualClock();
    const tm = new TokenManager({ clock });
    const cred = { baseUrl: server.url, family: 'gateway' as const, userName: 'u', password: 'p' };
    expect(await tm.getToken(cred)).toBe('tok-1');
    clock.advance(4 * 60_000 - 1); // renewed at 80% of 5 minutes
    expect(await tm.getToken(cred)).toBe('tok-1');
    expect(issued).toBe(1);
    clock.advance(60_000 + 1); // expired: the next caller waits for a new token
    expect(await tm.getToken(cred)).toBe('tok-2');
  });
});
