import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { creditBody, expectFieldError, plainCardInfo } from '../payment-helpers';

// 2026-04-01 10:00 in São Paulo, a Wednesday.
const clock = new OffsetClock(0, { now: () => new Date('2026-04-01T13:00:00Z') });
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ deps: { clock } });
});
afterAll(() => sb.close());

type Row = Record<string, unknown>;
const DAY = { accountNumber: '1001', startDate: '2026-04-01', endDate: '2026-04-01' };
const search = async (op: string, params: Record<string, string>) => {
  const res = await sb.call(
    'POST',
    `/api/transaction/concil/${op}?${new URLSearchParams(params).toString()}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Row[];
};
const control = (method: string, path: string, body?: unknown) =>
  sb.call(method, `/__sandbox${path}`, { token: null, ...(body === undefined ? {} : { body }) });

async function pay(amount: number, installments: number, extra: Row = {}): Promise<string> {
  const res = await sb.call('POST', '/v1/payments', {
    body: {
      ...creditBody(plainCardInfo(sb, '4000000000002701'), {
        amount,
        installments,
        productType: installments > 1 ? 'lojista' : 'avista',
      }),
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { paymentAuthorization: { nsu: string } }).paymentAuthorization.nsu;
}

/** At most `scale` decimals: a JSON number whose text has no more digits after the point. */
const hasScale = (v: unknown, scale: number) =>
  typeof v === 'number' && (String(v).split('.')[1] ?? '').length <= scale;

describe('reconciliation amounts in the spec formats', () => {
  it('summary row: "the body shape carries installments and amount as strings"; amount 10,4', async () => {
    const nsu = await pay(12_346, 3);
    const row = (await search('search-by-operation-date', DAY)).find((r) => r.nsu === nsu)!;
    expect(row.installments).toBe('3');
    expect(row.amount).toBe('123.4600');
  });

  it('installment row: decimals 10,4 are JSON numbers of at most four decimals', async () => {
    const nsu = await pay(10_001, 3, {
      configSplit: [{ documentNumberBeneficiary: '52998224725', percent: 33.33, type: 'liquido' }],
    });
    const rows = await search('search-by-code', { accountNumber: '1001', nsu });
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      for (const f of [
        'installmentValue',
        'transactionTotalValue',
        'discountMdrValue',
        'discountMdrTax',
        'discountTrnRateInstalmentValue',
        'discountTrnRateTransactionValue',
        'discountAntifraudRateInstalmentValue',
        'discountAntifraudRateTransactionValue',
        'discountAntecipationValue',
        'discountAntecipationTax',
        'receivedValue',
      ]) {
        expect(hasScale(r[f], 4), `${f} = ${String(r[f])}`).toBe(true);
      }
      expect(typeof r.installmentNumber).toBe('number');
      for (const s of r.splits as Row[]) {
        for (const f of ['pctSplit', 'valorBaseSplit', 'valorSplit']) {
          expect(hasScale(s[f], 4), `${f} = ${String(s[f])}`).toBe(true);
        }
      }
    }
  });
});

// Bank slip row: "value | decimal | 11,2 | original amount, format 0.00".
describe('bank slip values as "0.00" strings', () => {
  it('due-date list, details and credit-date list answer values formatted 0.00', async () => {
    const issued = await control('POST', '/bank-slips', {
      accountNumber: '1001',
      value: 150.5,
      dueDate: '2026-04-01',
    });
    expect(issued.status).toBe(201);
    const id = (issued.body as { id: string }).id;
    expect((await control('POST', `/bank-slips/${id}/pay`, { value: 150.5 })).status).toBe(200);
    const list = await sb.call(
      'GET',
      `/api/billissuer/list/by/due-date?${new URLSearchParams(DAY)}`,
    );
    expect((list.body as Row[]).find((r) => r.id === id)).toMatchObject({
      value: '150.50',
      effectivePaymentValue: '150.50',
    });
    const details = await sb.call(
      'GET',
      `/api/billissuer/information?accountNumber=1001&id_bill=${id}`,
    );
    expect(details.body).toMatchObject({ value: '150.50', success: true });
    const credit = await sb.call(
      'GET',
      `/api/billissuer/list/by/credit-date?accountNumber=1001&startDate=2026-04-01&endDate=2026-04-10`,
    );
    expect((credit.body as Row[]).find((r) => r.Id === id)).toMatchObject({
      Value: '150.50',
      EffectivePaymentValue: '150.50',
      // The late penalty it would carry (2 %); paid on time, none received.
      OverduePaymentPenalty: '3.01',
      OverduePenaltyReceived: '0.00',
    });
  });
});

// Reconciliation row: "receivedType | string | 1 | R = regular, A = one-off anticipation,
// E = automatic anticipation" (the account switch is automatic),
// "discountAntecipationValue | decimal | 10,4", "discountAntecipationTax | decimal | 10,4".
describe('anticipation switch per account (control plane)', () => {
  it('off: R with zero anticipation; on: E, next business day, the discount filled', async () => {
    expect((await control('GET', '/accounts/1001/anticipation')).body).toMatchObject({
      enabled: false,
    });
    const regular = await pay(10_000, 1);
    const on = await control('PUT', '/accounts/1001/anticipation', {
      enabled: true,
      monthlyTaxPct: 3,
    });
    expect(on.body).toEqual({ accountNumber: '1001', enabled: true, monthlyTaxPct: 3 });
    const anticipated = await pay(10_000, 1);
    await control('PUT', '/accounts/1001/anticipation', { enabled: false });
    const rows = await search('search-by-operation-date-installments', {
      accountNumber: '1001',
      startDate: '2026-04-01',
      endDate: '2026-04-10',
    });
    const r = rows.find((x) => x.nsu === regular)!;
    const a = rows.find((x) => x.nsu === anticipated)!;
    expect(r).toMatchObject({
      receivedType: 'R',
      discountAntecipationValue: 0,
      discountAntecipationTax: 0,
    });
    expect(a).toMatchObject({ receivedType: 'E', discountAntecipationTax: 3 });
    expect(a.discountAntecipationValue as number).toBeGreaterThan(0);
    // Regular credit receipt: 30 days after; anticipated: the next business day.
    expect(String(r.receivedDateForeast)).toMatch(/^2026-05-01T/);
    expect(String(a.receivedDateForeast)).toMatch(/^2026-04-02T/);
    // The discount comes off what is received, on the same net.
    expect(
      Math.round(((a.receivedValue as number) + (a.discountAntecipationValue as number)) * 1e4),
    ).toBe(Math.round((r.receivedValue as number) * 1e4));
    // Switched off again: regular settlement.
    const after = await pay(10_000, 1);
    const later = await search('search-by-code', { accountNumber: '1001', nsu: after });
    expect(later[0]).toMatchObject({ receivedType: 'R' });
  });

  it('refuses a bad body naming the field', async () => {
    expectFieldError(
      await control('PUT', '/accounts/1001/anticipation', { enabled: 'yes' }),
      400,
      'enabled',
    );
    expectFieldError(
      await control('PUT', '/accounts/1001/anticipation', { enabled: true, monthlyTaxPct: 101 }),
      400,
      'monthlyTaxPct',
    );
  });
});
