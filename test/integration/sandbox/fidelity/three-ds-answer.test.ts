import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { debitBody, plainCardInfo } from '../payment-helpers';
import { answerChallenge, type Challenge } from './acs';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('spec "POST /v1/payments/3ds | … | 200 with paymentAuthorization and threeDs"', () => {
  it('a challenge answer carries threeDs and a paymentAuthorization that waits for it', async () => {
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: { ...debitBody(plainCardInfo(sb, '4000000000002503')), referenceTransaction: 'o-9' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as {
      threeDs: Challenge & { status: string };
      paymentAuthorization: Record<string, unknown>;
    };
    // "When threeDs.status reports a challenge, the response carries acsUrl, pareq and
    // authenticationTransactionId".
    expect(body.threeDs).toMatchObject({
      status: 'PENDING_AUTHENTICATION',
      acsUrl: expect.any(String),
      pareq: expect.any(String),
      authenticationTransactionId: expect.any(String),
    });
    expect(body.paymentAuthorization).toEqual({
      returnCode: '',
      description: 'Aguardando autenticação 3DS',
      paymentId: expect.stringMatching(/^\d{20}$/),
      authorizationCode: '',
      orderNumber: 'o-9',
      amount: 2500,
      releaseAt: expect.any(String),
      status: 'PENDING_AUTHENTICATION',
    });

    // The paymentId given while waiting is the one the validate call authorizes.
    const pares = await answerChallenge(sb, body.threeDs);
    const plain = debitBody(plainCardInfo(sb, '4000000000002503'));
    const ok = await sb.call('POST', '/v1/payments/3ds/validate', {
      body: {
        authenticationTransactionId: body.threeDs.authenticationTransactionId,
        pares,
        cardInfo: plain.cardInfo,
        payment: plain.payment,
        sellerInfo: plain.sellerInfo,
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      paymentAuthorization: { returnCode: '00', paymentId: body.paymentAuthorization.paymentId },
      threeDs: { status: 'AUTHENTICATION_SUCCESSFUL' },
    });
  });
});
