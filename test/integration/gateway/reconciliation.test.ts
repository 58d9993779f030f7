import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../../../server/gateway';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { creditBody, encryptCard, sandboxClient, spToday } from './helpers';

let sb: TestSandbox;
let gc: GatewayClient;
let pem: string;

beforeAll(async () => {
  sb = await startSandbox();
  gc = sandboxClient(sb);
  pem = (await gc.getPublicKey()).key;
});
afterAll(() => sb.close());

const ACCOUNT = 1001;
const card = (number: string) => encryptCard(pem, number, sb.realClock.now());

describe('gateway client against the sandbox: reconciliation', () => {
  it('finds an approved payment by code, auth code and operation date', async () => {
    const paid = await gc.createCreditPayment(creditBody(card('4000000000002701'), 30_000, 3));
    const { authorizationCode: code, nsu } = paid.paymentAuthorization;
    const authorizationCode = code!;
    const today = spToday(sb.clock.now());
    const range = { accountNumber: ACCOUNT, startDate: today, endDate: today };

    const summary = await gc.searchConcilByOperationDate(range);
    const row = summary.find((r) => r.codAuth === authorizationCode);
    expect(row).toMatchObject({ installments: 3, amount: 300 });

    const installments = await gc.searchConcilByOperationDateInstallments(range);
    expect(installments.filter((r) => r.codAuth === authorizationCode)).toHaveLength(3);

    const byAuth = await gc.searchConcilByAuthCode({
      accountNumber: ACCOUNT,
      codAuth: authorizationCode,
    });
    expect(byAuth.length).toBe(3);
    const byCode = await gc.searchConcilByCode({
      accountNumber: ACCOUNT,
      ...(nsu ? { nsu } : { codAuth: authorizationCode }),
    });
    expect(byCode.length).toBe(3);
    expect(Array.isArray(await gc.searchConcilByPaymentDate(range))).toBe(true);
  });
});
