import { createGatewayClient, type GatewayClientOptions } from '../../../server/gateway/client';
import type { CreditPaymentRequest } from '../../../server/gateway/schemas';
import type { FakeState } from './fake-gateway';

/** A bank slip row as the due-date and payment-date lists answer it (spec: bank slip row). */
export const BANK_SLIP_ROW = {
  id: 's1',
  value: 10.5,
  issueDate: '2026-01-01',
  dueDate: '2026-01-10',
  payerDocument: '12345678901',
  payerName: 'Ana',
  payerStreetAndNumber: 'Rua A, 1',
  payerZipCode: '01001000',
  payerCity: 'São Paulo',
  payerCityState: 'SP',
  payerNeighborhood: 'Sé',
  payerPhoneNumber: null,
  effectivePaymentDate: null,
  effectiveCreditDate: null,
  effectivePaymentValue: null,
  barCode: null,
  digitableLine: null,
  pixEmv: null,
  statusBill: 2,
  statusIntegration: 2,
} as const;

// The gateway client's tests (client*.test.ts): a client of a fake gateway, and what it sends.
export const PASSWORD = 'pw';

export function client(url: string, over: Partial<GatewayClientOptions> = {}) {
  return createGatewayClient({
    gatewayBaseUrl: url,
    integrationBaseUrl: url,
    credentials: { gateway: { userName: 'merchant', password: PASSWORD } },
    ...over,
  });
}

export const authorization = (returnCode = '00') => ({
  paymentAuthorization: {
    returnCode,
    description: returnCode === '00' ? 'Approved' : 'Declined',
    paymentId: 'pay_1',
    authorizationCode: 'A1B2C3',
    amount: 1000,
    releaseAt: '2026-01-01T00:00:00.000Z',
  },
});

export const credit: CreditPaymentRequest = {
  payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
  sellerInfo: { codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8' },
  cardInfo: { cardholderName: 'ANA SOUZA', encryptedCard: 'c2VjcmV0LWNpcGhlcnRleHQ=' },
};

export const paymentRequests = (s: FakeState) =>
  s.requests.filter((r) => r.path === '/v1/payments');

export function plan(id: string) {
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
