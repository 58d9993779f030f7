import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../../server/sandbox/events';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import {
  creditBody,
  debitBody,
  encryptCard,
  expectFieldError,
  plainCardInfo,
  publicKey,
} from './payment-helpers';

let sb: TestSandbox;
const approved: PaymentRecord[] = [];
beforeAll(async () => {
  sb = await startSandbox();
  sb.sandbox.ctx.events.on('payment.approved', (e) => {
    approved.push(e.payment);
  });
});
afterAll(() => sb.close());

describe('POST /v1/payments (credit)', () => {
  it('approves a test card with an encrypted card and emits payment.approved', async () => {
    const pem = await publicKey(sb);
    const encryptedCard = encryptCard(
      pem,
      { number: '4000000000002701' },
      { timestamp: sb.realClock.now().getTime() },
    );
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody({ cardholderName: 'MARIA SILVA', encryptedCard }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const auth = (res.body as { paymentAuthorization: Record<string, unknown> })
      .paymentAuthorization;
    expect(auth).toMatchObject({ returnCode: '00', amount: 10_000, orderNumber: 'order-1' });
    expect(auth.paymentId).toMatch(/^\d{20}$/);
    expect(auth.nsu).toMatch(/^\d{12}$/);
    expect(auth.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(approved.at(-1)).toMatchObject({
      paymentId: auth.paymentId,
      maskedNumber: '400000*****2701',
      transactionType: 'credit',
    });
  });

  it.each([
    ['4000000000000002', '05'],
    ['4000000000009995', '51'],
    ['4000000000000069', '54'],
    ['4000000000000127', 'N7'],
    ['4000000000000465', '46'],
  ])('declines %s with %s as an answered 200', async (number, code) => {
    const before = approved.length;
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, number)),
    });
    expect(res.status).toBe(200);
    const auth = (res.body as { paymentAuthorization: Record<string, unknown> })
      .paymentAuthorization;
    expect(auth.returnCode).toBe(code);
    expect(typeof auth.description).toBe('string');
    expect(approved.length).toBe(before);
  });

  it('answers 500 with the internal error array for 4000000000000119', async () => {
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000000119')),
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual([
      { tag: '', description: 'The command could not be executed because of an unknown error' },
    ]);
  });
});

describe('POST /v1/payments/3ds (debit)', () => {
  it('authorizes a frictionless card', async () => {
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '5200000000002235')),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      paymentAuthorization: { returnCode: '00', amount: 2500 },
      threeDs: { status: 'AUTHENTICATION_SUCCESSFUL', eci: '02' },
    });
  });

  it('answers 400 3DS Fail for a frictionless failure', async () => {
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '4000000000002925')),
    });
    const items = expectFieldError(res, 400, '3DS Fail');
    for (const word of ['eci', 'threeDsVersion', 'threeDsStatus', 'veresEnrolled']) {
      expect(items[0]!.description).toContain(word);
    }
  });

  it('asks for a challenge with the ACS URL, PaReq and authentication id', async () => {
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '4000000000002503')),
    });
    expect(res.status).toBe(200);
    const body = res.body as { paymentAuthorization?: unknown; threeDs: Record<string, string> };
    expect(body.paymentAuthorization).toMatchObject({ status: 'PENDING_AUTHENTICATION' });
    expect(body.threeDs).toMatchObject({
      status: 'PENDING_AUTHENTICATION',
      acsUrl: `${sb.url}/acs/challenge`,
      threeDsVersion: '2.2.0',
    });
    expect(Buffer.from(body.threeDs.pareq!, 'base64').toString()).not.toContain('2503');
  });
});
