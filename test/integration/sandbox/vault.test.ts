import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../../server/sandbox/events';
import { authorizeVaulted, findVault } from '../../../server/sandbox/vault/service';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import {
  encryptCard,
  expectFieldError,
  futureYear,
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

async function vault(cardInfo: Record<string, unknown>) {
  return sb.call('POST', '/v1/cards/vault', { body: { cardInfo } });
}

describe('POST /v1/cards/vault', () => {
  it('vaults an encrypted card and keeps only masked facts', async () => {
    const pem = await publicKey(sb);
    const encryptedCard = encryptCard(
      pem,
      { number: '5200000000002235' },
      { timestamp: sb.realClock.now().getTime() },
    );
    const res = await vault({ cardholderName: 'JOAO SOUZA', encryptedCard });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { vaultId } = res.body as { vaultId: string };
    expect(vaultId.length).toBeLessThanOrEqual(36);
    expect(await findVault(sb.sandbox.ctx, 'sandbox', vaultId)).toEqual({
      vaultId,
      brand: 'mastercard',
      maskedNumber: '520000*****2235',
      expMonth: '12',
      expYear: futureYear(sb.clock.now()),
      holder: 'JOAO SOUZA',
    });
    expect(await findVault(sb.sandbox.ctx, 'someone-else', vaultId)).toBeNull();
    const listed = await sb.call('GET', '/__sandbox/vault', { token: null });
    expect(JSON.stringify(listed.body)).toContain('520000*****2235');
    expect(JSON.stringify(listed.body)).not.toContain('5200000000002235');
  });

  it.each([
    [
      {
        cardholderName: 'X',
        number: '4000000000002702',
        securityCode: '123',
        expirationMonth: '12',
        expirationYear: '40',
      },
      'cardInfo.number',
    ],
    [
      {
        cardholderName: 'X',
        number: '4000000000002701',
        securityCode: '123',
        expirationMonth: '01',
        expirationYear: '20',
      },
      'cardInfo.expirationYear',
    ],
    [
      {
        cardholderName: 'X',
        number: '4000000000002701',
        expirationMonth: '12',
        expirationYear: '40',
      },
      'cardInfo.securityCode',
    ],
    [
      {
        number: '4000000000002701',
        securityCode: '123',
        expirationMonth: '12',
        expirationYear: '40',
      },
      'cardInfo.cardholderName',
    ],
    [{ cardholderName: 'X'.repeat(31), encryptedCard: 'abc' }, 'cardInfo.cardholderName'],
    [{ cardholderName: 'X', encryptedCard: 'not-a-ciphertext' }, 'cardInfo.encryptedCard'],
  ])('refuses bad cards naming the field %#', async (cardInfo, tag) => {
    expectFieldError(await vault(cardInfo), 400, tag);
  });

  it('needs a token', async () => {
    const res = await sb.call('POST', '/v1/cards/vault', { token: null, body: { cardInfo: {} } });
    expect(res.status).toBe(401);
  });
});

describe('authorizeVaulted', () => {
  async function vaultPlain(number: string, extra: Record<string, unknown> = {}) {
    const res = await vault(plainCardInfo(sb, number, extra));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body as { vaultId: string }).vaultId;
  }

  it('approves, records a credit avista payment with the billing id and emits', async () => {
    const vaultId = await vaultPlain('4000000000002701');
    const r = await authorizeVaulted(sb.sandbox.ctx, {
      userName: 'sandbox',
      vaultId,
      amount: 4990,
      referenceTransaction: 'sub-1',
      billingId: 'bill-1',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.payment).toMatchObject({
      transactionType: 'credit',
      productType: 'avista',
      installments: 1,
      amount: 4990,
      billingId: 'bill-1',
      maskedNumber: '400000*****2701',
    });
    expect(approved.at(-1)?.paymentId).toBe(r.payment.paymentId);
  });

  it('declines with the card row, the override queue, or an expired card', async () => {
    const insufficient = await vaultPlain('4000000000009995');
    expect(
      await authorizeVaulted(sb.sandbox.ctx, {
        userName: 'sandbox',
        vaultId: insufficient,
        amount: 100,
      }),
    ).toMatchObject({
      ok: false,
      reason: 'declined',
      returnCode: '51',
    });
    const canceled = await vaultPlain('4000000000000465');
    expect(
      await authorizeVaulted(sb.sandbox.ctx, {
        userName: 'sandbox',
        vaultId: canceled,
        amount: 100,
      }),
    ).toMatchObject({
      ok: false,
      returnCode: '46',
    });

    const good = await vaultPlain('4000000000002701');
    const o = await sb.call('POST', '/__sandbox/outcomes', {
      token: null,
      body: { count: 1, internalError: true },
    });
    expect(o.status).toBe(201);
    expect(
      await authorizeVaulted(sb.sandbox.ctx, { userName: 'sandbox', vaultId: good, amount: 100 }),
    ).toMatchObject({
      ok: false,
      reason: 'error',
    });
    expect(
      (await authorizeVaulted(sb.sandbox.ctx, { userName: 'sandbox', vaultId: good, amount: 100 }))
        .ok,
    ).toBe(true);

    const soon = await vaultPlain('4000000000002701', {
      expirationMonth: String(sb.clock.now().getUTCMonth() + 1).padStart(2, '0'),
      expirationYear: String(sb.clock.now().getUTCFullYear() % 100),
    });
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { days: 40 } });
    expect(
      await authorizeVaulted(sb.sandbox.ctx, { userName: 'sandbox', vaultId: soon, amount: 100 }),
    ).toMatchObject({
      ok: false,
      returnCode: '54',
    });
  });

  it('is not_found for an unknown vault or another client', async () => {
    expect(
      await authorizeVaulted(sb.sandbox.ctx, { userName: 'sandbox', vaultId: 'nope', amount: 1 }),
    ).toMatchObject({
      ok: false,
      reason: 'not_found',
    });
  });
});
