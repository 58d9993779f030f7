import { describe, expect, it } from 'vitest';
import { BANK_SLIP_ROW } from '../fixtures';
import {
  BankSlipCreditDateQuerySchema,
  BankSlipCreditRowSchema,
  BankSlipDateRangeQuerySchema,
  BankSlipDetailsSchema,
  BankSlipInformationQuerySchema,
  BankSlipRowSchema,
} from '../../../../server/gateway/schemas/bank-slips';
import {
  ConcilByAuthCodeQuerySchema,
  ConcilByCodeQuerySchema,
  ConcilDateRangeQuerySchema,
  ConcilInstallmentRowSchema,
  ConcilSummaryRowSchema,
} from '../../../../server/gateway/schemas/reconciliation';
import {
  WebhookAccountQuerySchema,
  WebhookNotificationSchema,
  WebhookSubscriptionRequestSchema,
} from '../../../../server/gateway/schemas/webhooks';

function firstPath(r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) {
  return r.success ? '' : r.error!.issues[0]!.path.map(String).join('.');
}

describe('reconciliation queries', () => {
  it.each<[string, Record<string, string>, string]>([
    ['nsu', { accountNumber: '1001', nsu: '1'.repeat(100) }, ''],
    ['codAuth', { accountNumber: '1001', codAuth: 'A'.repeat(30) }, ''],
    ['nsu of 101', { accountNumber: '1001', nsu: '1'.repeat(101) }, 'nsu'],
    ['codAuth of 31', { accountNumber: '1001', codAuth: 'A'.repeat(31) }, 'codAuth'],
    ['neither nsu nor codAuth', { accountNumber: '1001' }, 'nsu'],
    ['no accountNumber', { nsu: '1' }, 'accountNumber'],
    ['accountNumber not a long', { accountNumber: '10a1', nsu: '1' }, 'accountNumber'],
    ['accountNumber of 19 digits', { accountNumber: '1'.repeat(19), nsu: '1' }, 'accountNumber'],
  ])('by code: %s', (_n, q, path) => {
    expect(firstPath(ConcilByCodeQuerySchema.safeParse(q))).toBe(path);
  });

  const auth = { accountNumber: '1001', codAuth: 'A1' };
  it.each<[string, Record<string, string>, string]>([
    ['codAuth only', {}, ''],
    ['value with 4 decimals', { value: '123456.1234' }, ''],
    ['value with 5 decimals', { value: '1.12345' }, 'value'],
    ['value with 7 integer digits', { value: '1234567' }, 'value'],
    ['installmentValue not a number', { installmentValue: 'ten' }, 'installmentValue'],
    ['installmentNumber 2', { installmentNumber: '2' }, ''],
    ['installmentNumber 1.5', { installmentNumber: '1.5' }, 'installmentNumber'],
    ['operationDate', { operationDate: '2026-01-31' }, ''],
    ['operationDate that does not exist', { operationDate: '2026-02-31' }, 'operationDate'],
    ['operationDate as a datetime', { operationDate: '2026-01-31T00:00:00Z' }, 'operationDate'],
  ])('by auth code: %s', (_n, patch, path) => {
    expect(firstPath(ConcilByAuthCodeQuerySchema.safeParse({ ...auth, ...patch }))).toBe(path);
  });

  it('by auth code parses decimals and ints to numbers', () => {
    expect(
      ConcilByAuthCodeQuerySchema.parse({ ...auth, value: '10.50', installmentNumber: '3' }),
    ).toMatchObject({ value: 10.5, installmentNumber: 3 });
  });

  it.each<[Record<string, string>, string]>([
    [{ startDate: '2026-01-01', endDate: '2026-01-01' }, ''],
    [{ startDate: '2026-01-02', endDate: '2026-01-01' }, 'endDate'],
    [{ startDate: '2026-1-1', endDate: '2026-01-01' }, 'startDate'],
    [{ startDate: '2026-01-01' }, 'endDate'],
  ])('date range %j', (q, path) => {
    expect(firstPath(ConcilDateRangeQuerySchema.safeParse({ accountNumber: '1001', ...q }))).toBe(
      path,
    );
  });

  it('a date sent as a datetime is one issue, not one per rule it breaks', () => {
    const r = ConcilDateRangeQuerySchema.safeParse({
      accountNumber: '1001',
      startDate: '2026-01-01T00:00:00',
      endDate: '2026-01-01',
    });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['startDate']);
  });
});

describe('reconciliation rows', () => {
  const summary = {
    transactionDate: '2026-01-01T10:00:00-03:00',
    terminal: 'T1',
    cardNumber: '400000*****2701',
    cardType: 'credit',
    cardName: 'visa',
    nsu: '123',
    codAuth: 'A1',
    installments: '3',
    amount: '100.5000',
    transactionStatus: 'A',
    transactionReference: 'order-1',
    transactionPaymentIdWeb: 'pay_1',
  };
  it.each<[string, Record<string, unknown>, boolean]>([
    ['installments and amount as strings', {}, true],
    ['installments and amount as numbers', { installments: 3, amount: 100.5 }, true],
    ['installments not a whole number', { installments: '3.5' }, false],
    ['amount not numeric', { amount: 'cem' }, false],
    ['status outside A, B, C', { transactionStatus: 'X' }, false],
    ['cardNumber of 16', { cardNumber: '4'.repeat(16) }, false],
  ])('summary: %s', (_n, patch, ok) => {
    const r = ConcilSummaryRowSchema.safeParse({ ...summary, ...patch });
    expect(r.success).toBe(ok);
    if (ok) expect(typeof r.data!.installments).toBe('number');
  });

  it('installment row with splits and null receipt dates', () => {
    const row = {
      transactionDate: '2026-01-01T10:00:00-03:00',
      nsu: '123',
      codAuth: 'A1',
      installmentNumber: 1,
      installmentsCount: 3,
      installmentValue: 33.5,
      transactionTotalValue: 100.5,
      installmentStatus: 'A',
      receivedDateForeast: '2026-02-01T00:00:00-03:00',
      receivedDateEffective: null,
      receivedType: 'R',
      receivedStatus: 'A',
      splits: [
        {
          beneficiario: '12345678901',
          tipoSplit: 'bruto',
          pctSplit: 10,
          valorBaseSplit: 100.5,
          valorSplit: 10.05,
        },
      ],
    };
    expect(ConcilInstallmentRowSchema.safeParse(row).success).toBe(true);
    expect(ConcilInstallmentRowSchema.safeParse({ ...row, receivedType: 'X' }).success).toBe(false);
    expect(ConcilInstallmentRowSchema.safeParse({ ...row, installmentStatus: 'P' }).success).toBe(
      false,
    );
  });
});

describe('bank slip queries', () => {
  const range = { accountNumber: '1001', startDate: '2026-01-01', endDate: '2026-01-31' };
  it.each<[Record<string, string>, string]>([
    [{}, ''],
    [{ endDate: '2025-12-31' }, 'endDate'],
    [{ startDate: '2026-13-01' }, 'startDate'],
    [{ accountNumber: '' }, 'accountNumber'],
  ])('due/payment date %j', (patch, path) => {
    expect(firstPath(BankSlipDateRangeQuerySchema.safeParse({ ...range, ...patch }))).toBe(path);
  });

  it.each([
    ['1', ''],
    ['99', ''],
    ['3', 'statusIntegration'],
    ['x', 'statusIntegration'],
  ])('credit date statusIntegration %s', (statusIntegration, path) => {
    expect(
      firstPath(BankSlipCreditDateQuerySchema.safeParse({ ...range, statusIntegration })),
    ).toBe(path);
  });

  it.each<[Record<string, string>, string | null]>([
    [{ id_bill: 's1' }, 's1'],
    [{ id: 's1' }, 's1'],
    [{ id_bill: 's1', id: 's1' }, 's1'],
    [{ id_bill: 's1', id: 's2' }, null],
    [{}, null],
    [{ id: 'x'.repeat(37) }, null],
  ])('information accepts id_bill or id: %j', (q, id) => {
    const r = BankSlipInformationQuerySchema.safeParse({ accountNumber: '1001', ...q });
    expect(r.success).toBe(id !== null);
    if (id !== null) expect(r.data).toEqual({ accountNumber: '1001', id });
  });
});

describe('bank slip rows', () => {
  const row = BANK_SLIP_ROW;
  it.each<[string, Record<string, unknown>, boolean]>([
    ['issued, nulls for what is not known yet', {}, true],
    ['every statusBill', { statusBill: 99 }, true],
    ['statusBill 4', { statusBill: 4 }, false],
    ['statusIntegration 3', { statusIntegration: 3 }, false],
    ['payerCityState of 3', { payerCityState: 'SPX' }, false],
    ['payerZipCode of 9', { payerZipCode: '010010001' }, false],
    ['dueDate not a date', { dueDate: '10/01/2026' }, false],
    [
      'paid',
      { statusBill: 3, effectivePaymentDate: '2026-01-05', effectivePaymentValue: '10.50' },
      true,
    ],
  ])('camelCase row: %s', (_n, patch, ok) => {
    expect(BankSlipRowSchema.safeParse({ ...row, ...patch }).success).toBe(ok);
  });

  it('PascalCase credit row takes dates or datetimes', () => {
    const credit = {
      Id: 's1',
      Value: 10.5,
      IssueDate: '2026-01-01',
      DueDate: '2026-01-10T00:00:00-03:00',
      PayerDocument: '12345678901',
      PayerName: 'Ana',
      PayerZipCode: '01001000',
      PayerCity: 'São Paulo',
      PayerCityState: 'SP',
      PayerStreetAndNumber: 'Rua A, 1',
      PayerNeighborhood: 'Sé',
      EffectiveCreditDate: '2026-01-06T00:00:00-03:00',
      OverduePaymentAllow: true,
      CancelDate: null,
    };
    expect(BankSlipCreditRowSchema.safeParse(credit).success).toBe(true);
    expect(BankSlipCreditRowSchema.safeParse({ ...credit, Id: undefined }).success).toBe(false);
    expect(
      BankSlipCreditRowSchema.safeParse({ ...credit, PayerDocument: '1'.repeat(15) }).success,
    ).toBe(false);
  });

  it('details: a failure carries only success and message', () => {
    expect(BankSlipDetailsSchema.safeParse({ success: false, message: 'not found' }).success).toBe(
      true,
    );
    expect(BankSlipDetailsSchema.safeParse({ ...row, status: 3, success: true }).success).toBe(
      true,
    );
    expect(BankSlipDetailsSchema.safeParse({ message: 'x' }).success).toBe(false);
  });
});

describe('webhooks', () => {
  const basicAuth = Buffer.from('gateway:secret').toString('base64');
  it.each<[string, Record<string, unknown>, string]>([
    ['https', { url: 'https://m.example/hooks' }, ''],
    ['http with a port', { url: 'http://localhost:3001/webhooks/gateway' }, ''],
    ['relative', { url: '/webhooks' }, 'url'],
    ['ftp', { url: 'ftp://m.example/x' }, 'url'],
    ['too long', { url: 'https://m.example/' + 'a'.repeat(2048) }, 'url'],
    ['basicAuth not Base64', { basicAuth: 'gateway:secret' }, 'basicAuth'],
    [
      'basicAuth without a colon',
      { basicAuth: Buffer.from('nocolon').toString('base64') },
      'basicAuth',
    ],
    ['basicAuth missing', { basicAuth: undefined }, 'basicAuth'],
  ])('subscription body: %s', (_n, patch, path) => {
    const body = { url: 'https://m.example/hooks', basicAuth, ...patch };
    expect(firstPath(WebhookSubscriptionRequestSchema.safeParse(body))).toBe(path);
  });

  it('accountNumber query is digits', () => {
    expect(WebhookAccountQuerySchema.safeParse({ accountNumber: '1001' }).success).toBe(true);
    expect(WebhookAccountQuerySchema.safeParse({ accountNumber: 'abc' }).success).toBe(false);
    expect(WebhookAccountQuerySchema.safeParse({}).success).toBe(false);
  });

  const note = {
    movementId: 7,
    nsu: '123',
    codAuth: 'A1',
    installmentNumber: 1,
    moment: '2026-01-01T10:00:00-03:00',
    type: 'status',
    oldValue: 'Authorized',
    newValue: 'Canceled',
  };
  it.each<[string, Record<string, unknown>, string]>([
    ['a status change', {}, ''],
    ['no old value', { oldValue: null }, ''],
    ['movementId as a string', { movementId: '7' }, 'movementId'],
    ['movementId 7.5', { movementId: 7.5 }, 'movementId'],
    ['installmentNumber missing', { installmentNumber: undefined }, 'installmentNumber'],
    ['moment not a datetime', { moment: 'now' }, 'moment'],
    ['nsu empty', { nsu: '' }, 'nsu'],
  ])('notification: %s', (_n, patch, path) => {
    expect(firstPath(WebhookNotificationSchema.safeParse({ ...note, ...patch }))).toBe(path);
  });
});
