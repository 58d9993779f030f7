import { describe, expect, it } from 'vitest';
import {
  addDays,
  nextBusinessDay,
  spDate,
  spIso,
  spStartOfDay,
} from '../../../../server/sandbox/reconciliation/calendar';
import { DEFAULT_FEES, mdrPct } from '../../../../server/sandbox/reconciliation/fees';
import { installmentsOf, splitEven } from '../../../../server/sandbox/reconciliation/ledger';

describe('splitEven', () => {
  it.each([
    [100, 1, [100]],
    [100, 3, [34, 33, 33]],
    [1000, 3, [334, 333, 333]],
    [5, 12, [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
  ])('%i over %i', (total, n, parts) => {
    const got = splitEven(total, n);
    expect(got.reduce((a, b) => a + b, 0)).toBe(total);
    expect(got).toEqual(parts);
    expect(got.slice(1).every((p) => p === got[1])).toBe(true);
  });
});

describe('MDR by product and installments', () => {
  it.each([
    ['debit', 1, 1.19],
    ['credit', 1, 2.79],
    ['credit', 2, 3.29],
    ['credit', 6, 3.29],
    ['credit', 7, 3.69],
    ['credit', 12, 3.69],
  ] as const)('%s %i → %f%%', (type, n, pct) => {
    expect(mdrPct(DEFAULT_FEES, type, n)).toBe(pct);
  });
});

describe('installmentsOf', () => {
  it('credit 3x R$123.45: remainder on the first, fees split, receipts 30 days apart', () => {
    const rows = installmentsOf(
      { amount: 12_346, installments: 3, transactionType: 'credit', configSplit: null },
      '2026-01-31',
      DEFAULT_FEES,
    );
    expect(rows.map((r) => r.installmentU4)).toEqual([411_600, 411_500, 411_500]);
    expect(rows.map((r) => r.trnInstallmentU4)).toEqual([334, 333, 333]);
    expect(rows.map((r) => r.antifraudInstallmentU4)).toEqual([500, 500, 500]);
    expect(rows[0]!.mdrU4).toBe(Math.round(411_600 * 0.0329));
    expect(rows.map((r) => r.receivedDateForecast)).toEqual([
      '2026-03-02',
      '2026-04-01',
      '2026-05-01',
    ]);
    for (const r of rows) {
      expect(r.receivedU4 + r.mdrU4 + r.trnInstallmentU4 + r.antifraudInstallmentU4).toBe(
        r.installmentU4,
      );
      expect(r.totalU4).toBe(1_234_600);
      expect(r.splits).toBeNull();
    }
  });

  it('debit: next-day receipt, no anti-fraud fee', () => {
    const [row] = installmentsOf(
      { amount: 2_500, installments: 1, transactionType: 'debit', configSplit: null },
      '2026-12-31',
      DEFAULT_FEES,
    );
    expect(row).toMatchObject({
      receivedDateForecast: '2027-01-01',
      antifraudTransactionU4: 0,
      mdrTaxPct: 1.19,
      mdrU4: 2_975,
      receivedU4: 250_000 - 2_975 - 1_000,
    });
  });

  it('split rows: bruto on the installment value, liquido on what is received', () => {
    const [row] = installmentsOf(
      {
        amount: 10_000,
        installments: 1,
        transactionType: 'credit',
        configSplit: [
          { documentNumberBeneficiary: '12345678000199', percent: 10, type: 'bruto' },
          { documentNumberBeneficiary: '12345678909', percent: 25.5, type: 'liquido' },
        ],
      },
      '2026-06-01',
      DEFAULT_FEES,
    );
    expect(row!.splits).toEqual([
      {
        beneficiario: '12345678000199',
        tipoSplit: 'bruto',
        pctSplit: 10,
        valorBaseSplit: 100,
        valorSplit: 10,
      },
      {
        beneficiario: '12345678909',
        tipoSplit: 'liquido',
        pctSplit: 25.5,
        valorBaseSplit: row!.receivedU4 / 10_000,
        valorSplit: Math.round(row!.receivedU4 * 0.255) / 10_000,
      },
    ]);
  });
});

describe('split values', () => {
  it('round half up in integers, as every other value of the row', () => {
    const valorSplit = (pct: number) =>
      installmentsOf(
        {
          transactionType: 'credit',
          amount: 250,
          installments: 1,
          configSplit: [{ documentNumberBeneficiary: '12345678909', percent: pct, type: 'bruto' }],
        },
        '2026-05-04',
        DEFAULT_FEES,
      )[0]!.splits![0]!.valorSplit;
    expect(valorSplit(0.57)).toBe(0.0143); // 0.01425 exactly
    expect(valorSplit(1.13)).toBe(0.0283); // 0.02825 exactly
    expect(valorSplit(100)).toBe(2.5);
  });
});

describe('receipt dates', () => {
  it('fall on business days: a weekend date moves to the Monday', () => {
    const sale = (transactionType: 'credit' | 'debit') =>
      installmentsOf(
        { transactionType, configSplit: null, amount: 10_000, installments: 1 },
        '2026-05-01', // a Friday
        DEFAULT_FEES,
      )[0]!.receivedDateForecast;
    expect(sale('debit')).toBe('2026-05-04'); // D+1 is a Saturday
    expect(sale('credit')).toBe('2026-06-01'); // D+30 is a Sunday
    // Anticipated on a Friday: the Monday, which is when it is received anyway.
    const [early] = installmentsOf(
      { transactionType: 'debit', configSplit: null, amount: 10_000, installments: 1 },
      '2026-05-01',
      DEFAULT_FEES,
      { monthlyTaxPct: 1.99 },
    );
    expect(early).toMatchObject({ receivedDateForecast: '2026-05-04', receivedType: 'R' });
  });
});

describe('automatic anticipation (the account switch)', () => {
  const credit = { transactionType: 'credit' as const, configSplit: null };

  it("is the spec's E; a receipt not brought forward stays R with nothing taken", () => {
    const [credit1] = installmentsOf(
      { ...credit, amount: 10_000, installments: 1 },
      '2026-05-04',
      DEFAULT_FEES,
      { monthlyTaxPct: 1.99 },
    );
    expect(credit1).toMatchObject({ receivedType: 'E', antecipationTaxPct: 1.99 });
    expect(credit1!.antecipationU4).toBeGreaterThan(0);
    // A Monday debit is received on Tuesday either way: nothing anticipated.
    const [debit] = installmentsOf(
      { transactionType: 'debit', configSplit: null, amount: 10_000, installments: 1 },
      '2026-05-04',
      DEFAULT_FEES,
      { monthlyTaxPct: 1.99 },
    );
    expect(debit).toMatchObject({ receivedType: 'R', antecipationU4: 0, antecipationTaxPct: 0 });
  });

  it('never takes more than the net: nothing is received below zero', () => {
    for (const [amount, installments, monthlyTaxPct] of [
      [120_000, 12, 9],
      [600_000, 60, 1.99],
      [100, 99, 100],
    ] as const) {
      const rows = installmentsOf({ ...credit, amount, installments }, '2026-05-04', DEFAULT_FEES, {
        monthlyTaxPct,
      });
      for (const r of rows) {
        expect(r.receivedU4).toBeGreaterThanOrEqual(0);
        expect(r.antecipationU4).toBeLessThanOrEqual(
          r.installmentU4 - r.mdrU4 - r.trnInstallmentU4 - r.antifraudInstallmentU4,
        );
      }
    }
  });
});

describe('São Paulo calendar', () => {
  it('converts instants to calendar days at UTC−3', () => {
    expect(spDate(new Date('2026-03-14T02:59:59Z'))).toBe('2026-03-13');
    expect(spDate(new Date('2026-03-14T03:00:00Z'))).toBe('2026-03-14');
    expect(spStartOfDay('2026-03-14').toISOString()).toBe('2026-03-14T03:00:00.000Z');
    expect(spIso(new Date('2026-03-14T03:00:00Z'))).toBe('2026-03-14T00:00:00.000-03:00');
  });

  it('knows the old daylight-saving offset (2018-12-01 was UTC−2)', () => {
    expect(spStartOfDay('2018-12-01').toISOString()).toBe('2018-12-01T02:00:00.000Z');
  });

  it('adds days across months and skips weekends for business days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(nextBusinessDay('2026-03-13')).toBe('2026-03-16');
    expect(nextBusinessDay('2026-03-16')).toBe('2026-03-17');
  });
});
