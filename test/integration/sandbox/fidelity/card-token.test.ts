import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import {
  creditBody,
  debitBody,
  expectFieldError,
  plainCardInfo,
  type ErrorArray,
} from '../payment-helpers';
import { answerChallenge, type Challenge } from './acs';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

async function vault(number: string): Promise<string> {
  const res = await sb.call('POST', '/v1/cards/vault', {
    body: { cardInfo: plainCardInfo(sb, number) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { vaultId: string }).vaultId;
}

const token = (vaultId: string, extra: Record<string, unknown> = {}) => ({
  cardholderName: 'MARIA SILVA',
  numberToken: vaultId,
  ...extra,
});

// Spec: "cardInfo.numberToken | string | no | fixed | tokenized card identifier" (both payment
// bodies) and "A vaultId is created through the card vault of the gateway" (DESIGN §5).
describe('cardInfo.numberToken: a vaultId pays', () => {
  it('credit with numberToken and securityCode is authorized on the vaulted card', async () => {
    const vaultId = await vault('5200000000002235');
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody(token(vaultId, { securityCode: '123' })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const auth = (res.body as { paymentAuthorization: { returnCode: string; paymentId: string } })
      .paymentAuthorization;
    expect(auth.returnCode).toBe('00');
    const row = await sb.sandbox.ctx.db
      .selectFrom('payments')
      .select(['masked_number', 'brand'])
      .where('payment_id', '=', auth.paymentId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ masked_number: '520000*****2235', brand: 'mastercard' });
  });

  it('keeps the test-card behaviour it was vaulted with (a 51 card declines 51)', async () => {
    const vaultId = await vault('4000000000009995');
    const res = await sb.call('POST', '/v1/payments', { body: creditBody(token(vaultId)) });
    expect(res.body).toMatchObject({ paymentAuthorization: { returnCode: '51' } });
  });

  it('debit with 3DS: a challenge card by token is challenged and validated by token', async () => {
    const vaultId = await vault('4000000000002503');
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(token(vaultId, { securityCode: '321' })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ch = (res.body as { threeDs: Challenge & { status: string } }).threeDs;
    expect(ch.status).toBe('PENDING_AUTHENTICATION');
    const pares = await answerChallenge(sb, ch);
    const base = debitBody(token(vaultId));
    const validate = (cardInfo: Record<string, unknown>) =>
      sb.call('POST', '/v1/payments/3ds/validate', {
        body: {
          authenticationTransactionId: ch.authenticationTransactionId,
          pares,
          cardInfo,
          payment: base.payment,
          sellerInfo: base.sellerInfo,
        },
      });
    // Another token is another card.
    expectFieldError(await validate(token(await vault('4000000000002503'))), 400, 'cardInfo');
    const ok = await validate(token(vaultId));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ paymentAuthorization: { returnCode: '00' } });
  });

  it('debit frictionless by token is authorized at once', async () => {
    const vaultId = await vault('4000000000002701');
    const res = await sb.call('POST', '/v1/payments/3ds', { body: debitBody(token(vaultId)) });
    expect(res.body).toMatchObject({
      paymentAuthorization: { returnCode: '00' },
      threeDs: { status: 'AUTHENTICATION_SUCCESSFUL' },
    });
  });

  it('refuses an unknown token, a wrong-length CVV and a token sent with a card', async () => {
    expectFieldError(
      await sb.call('POST', '/v1/payments', {
        body: creditBody(token('00000000-0000-4000-8000-000000000000')),
      }),
      400,
      'cardInfo.numberToken',
    );
    const vaultId = await vault('340000000002708');
    expectFieldError(
      await sb.call('POST', '/v1/payments', {
        body: creditBody(token(vaultId, { securityCode: '123' })),
      }),
      400,
      'cardInfo.securityCode',
    );
    const both = await sb.call('POST', '/v1/payments', {
      body: creditBody({ ...plainCardInfo(sb, '4000000000002701'), numberToken: vaultId }),
    });
    expect((both.body as ErrorArray)[0]!.tag).toBe('cardInfo.numberToken');
  });
});

describe('plain card fields stay a sandbox convenience', () => {
  it('number + securityCode + expiry pays as before (not in the spec: see README)', async () => {
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000002701')),
    });
    expect(res.body).toMatchObject({ paymentAuthorization: { returnCode: '00' } });
  });
});
