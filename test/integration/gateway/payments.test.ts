import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GatewayDeclinedError,
  GatewayInternalError,
  GatewayThreeDsError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
  GatewayValidationError,
  type CreditPaymentResponse,
  type GatewayClient,
} from '../../../server/gateway';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import {
  answerChallenge,
  creditBody,
  debitBody,
  debitPayment,
  encryptCard,
  sandboxClient,
  sellerInfo3ds,
} from './helpers';

let sb: TestSandbox;
let gc: GatewayClient;
let pem: string;

beforeAll(async () => {
  sb = await startSandbox();
  gc = sandboxClient(sb);
  pem = (await gc.getPublicKey()).key;
});
afterAll(() => sb.close());

const card = (number: string) => encryptCard(pem, number, sb.realClock.now());

describe('gateway client against the sandbox: keys and payments', () => {
  it('fetches a PEM public key with a token it obtained itself', async () => {
    expect(pem).toContain('-----BEGIN PUBLIC KEY-----');
    expect((await gc.getPublicKey()).key).toBe(pem);
  });

  it('authorizes a credit payment with an encrypted card', async () => {
    const res = await gc.createCreditPayment(creditBody(card('4000000000002701'), 12_345, 3));
    expect(res.paymentAuthorization).toMatchObject({ returnCode: '00', amount: 12_345 });
    expect(res.paymentAuthorization.paymentId).toBeTruthy();
    expect(res.paymentAuthorization.authorizationCode).toBeTruthy();
  });

  it.each([
    ['4000000000000002', '05'],
    ['4000000000009995', '51'],
    ['4000000000000069', '54'],
    ['4000000000000127', 'N7'],
  ])('a decline of %s is thrown as GatewayDeclinedError %s', async (number, code) => {
    const err = await gc.createCreditPayment(creditBody(card(number))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayDeclinedError);
    const d = err as GatewayDeclinedError<CreditPaymentResponse>;
    expect(d.returnCode).toBe(code);
    expect(d.response.paymentAuthorization.returnCode).toBe(code);
  });

  it('the internal-error card is a GatewayInternalError with the spec error item', async () => {
    const err = await gc
      .createCreditPayment(creditBody(card('4000000000000119')))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayInternalError);
    expect((err as GatewayInternalError).status).toBe(500);
    expect((err as GatewayInternalError).items[0]?.tag).toBe('');
  });

  it('a body the sandbox refuses is a GatewayValidationError naming the field', async () => {
    const body = creditBody(card('4000000000002701'));
    const err = await gc
      .createCreditPayment({ ...body, payment: { ...body.payment, amount: 0 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect((err as GatewayValidationError).items[0]?.tag).toBe('payment.amount');
  });

  it('3DS frictionless: authorized at once', async () => {
    const res = await gc.createDebit3dsPayment(debitBody(card('4000000000002701')));
    expect(res.threeDs.status).toBe('AUTHENTICATION_SUCCESSFUL');
    expect(res.paymentAuthorization?.returnCode).toBe('00');
  });

  it('3DS frictionless failure is a GatewayThreeDsError', async () => {
    const err = await gc
      .createDebit3dsPayment(debitBody(card('4000000000002925')))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayThreeDsError);
    expect((err as GatewayThreeDsError).items[0]?.tag).toBe('3DS Fail');
  });

  it('3DS challenge: pending, then the ACS answer validates into an authorization', async () => {
    const pending = await gc.createDebit3dsPayment(debitBody(card('4000000000002503')));
    expect(pending.threeDs.status).toBe('PENDING_AUTHENTICATION');
    expect(pending.paymentAuthorization).toMatchObject({
      returnCode: '',
      status: 'PENDING_AUTHENTICATION',
    });
    expect(pending.threeDs.acsUrl).toMatch(/^http/);
    const pares = await answerChallenge(sb, pending.threeDs);
    const done = await gc.validate3ds({
      authenticationTransactionId: pending.threeDs.authenticationTransactionId!,
      pares,
      cardInfo: { cardholderName: 'MARIA SILVA', encryptedCard: card('4000000000002503') },
      payment: debitPayment(),
      sellerInfo: sellerInfo3ds,
    });
    expect(done.paymentAuthorization?.returnCode).toBe('00');
    expect(done.threeDs.status).toBe('AUTHENTICATION_SUCCESSFUL');
  });

  it('a wrong OTP makes validate a GatewayThreeDsError', async () => {
    const pending = await gc.createDebit3dsPayment(debitBody(card('4000000000002370')));
    const pares = await answerChallenge(sb, pending.threeDs);
    const err = await gc
      .validate3ds({
        authenticationTransactionId: pending.threeDs.authenticationTransactionId!,
        pares,
        cardInfo: { cardholderName: 'MARIA SILVA', encryptedCard: card('4000000000002370') },
        payment: debitPayment(),
        sellerInfo: sellerInfo3ds,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayThreeDsError);
  });
});

describe('gateway client against the sandbox: refunds and vault', () => {
  it('lists a cancellation request opened for a payment', async () => {
    const paid = await gc.createCreditPayment(creditBody(card('5200000000002235'), 5_000));
    const opened = await sb.call('POST', '/__sandbox/cancellation-requests', {
      token: null,
      body: { paymentId: paid.paymentAuthorization.paymentId, description: 'customer asked' },
    });
    expect(opened.status).toBe(201);
    const id = (opened.body as { id: string }).id;
    const byId = await gc.listRefunds({ id });
    expect(byId.items).toHaveLength(1);
    expect(byId.items[0]).toMatchObject({ id, status: 'PENDENTE', description: 'customer asked' });
    const pending = await gc.listRefunds({ status: 'PENDENTE', skip: 0, take: 100 });
    expect(pending.take).toBe(100);
    expect(pending.items.some((r) => r.id === id)).toBe(true);
    expect((await gc.listRefunds({ status: 'REJEITADO' })).totalCount).toBe(0);
  });

  it('refuses take above 100 as a GatewayValidationError', async () => {
    await expect(gc.listRefunds({ take: 101 })).rejects.toBeInstanceOf(GatewayValidationError);
  });

  it('vaults an encrypted card', async () => {
    const res = await gc.vaultCard({
      cardInfo: { cardholderName: 'ANA SILVA', encryptedCard: card('4000000000002701') },
    });
    expect(res.vaultId).toBeTruthy();
  });
});

describe('gateway client against the sandbox: tokens, timeouts', () => {
  it('recovers from a token the sandbox expired: one refresh, one retry', async () => {
    const seen: string[] = [];
    const client = sandboxClient(sb, {
      fetch: (input, init) => {
        seen.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    });
    await client.getPublicKey();
    // Token lifetime is a security window: real time (here the test's real clock) past the hour.
    sb.realClock.advance(61 * 60_000);
    expect((await client.getPublicKey()).key).toBe(pem);
    expect(seen).toEqual([
      '/api/auth/token',
      '/v1/cards/public-key',
      '/v1/cards/public-key',
      '/api/auth/token',
      '/v1/cards/public-key',
    ]);
  });

  it('wrong credentials are a GatewayUnauthorizedError', async () => {
    const client = sandboxClient(sb, {
      credentials: { gateway: { userName: 'sandbox', password: 'not-the-password' } },
    });
    const err = await client.getPublicKey().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayUnauthorizedError);
    expect(String(err)).not.toContain('not-the-password');
  });

  it('a payment slower than the timeout is a GatewayTimeoutError with sent = true', async () => {
    const fault = await sb.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path: '/v1/payments', count: 1, latencyMs: 2_000 },
    });
    expect(fault.status).toBe(201);
    const err = await gc
      .createCreditPayment(creditBody(card('4000000000002701')), { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(true);
    await sb.call('DELETE', '/__sandbox/faults', { token: null });
  });
});
