import { describe, expect, it } from 'vitest';
import {
  checkProductType,
  checkSplits,
  validTaxId,
} from '../../../../server/sandbox/payments/rules';

describe('checkProductType', () => {
  it.each([
    ['credit', 'avista', 1, null],
    ['credit', 'avista', 2, 'payment.installments'],
    ['credit', 'lojista', 2, null],
    ['credit', 'lojista', 1, 'payment.installments'],
    ['credit', 'debito', 1, 'payment.productType'],
    ['debit', 'debito', 1, null],
    ['debit', 'debito', 3, 'payment.installments'],
    ['debit', 'avista', 1, null],
    ['debit', 'lojista', 3, null],
    ['debit', 'lojista', 1, 'payment.installments'],
  ] as const)('%s %s × %i → %s', (type, product, n, tag) => {
    expect(checkProductType(type, product, n)?.tag ?? null).toBe(tag);
  });
});

describe('checkSplits', () => {
  const a = { documentNumberBeneficiary: '12345678909', percent: 60, type: 'bruto' as const };
  const b = { documentNumberBeneficiary: '11222333000181', percent: 40, type: 'liquido' as const };
  it('accepts splits up to 100 percent in total', () => {
    expect(checkSplits([a, b])).toEqual([]);
    expect(checkSplits(undefined)).toEqual([]);
  });
  it('refuses more than 100 percent, duplicates and wrong check digits', () => {
    expect(checkSplits([a, { ...b, percent: 40.01 }]).map((e) => e.tag)).toEqual(['configSplit']);
    expect(checkSplits([a, { ...a, percent: 1 }]).map((e) => e.tag)).toEqual([
      'configSplit.1.documentNumberBeneficiary',
    ]);
    // The spec makes every sub-field optional.
    expect(checkSplits([{ percent: 10 }, {}])).toEqual([]);
    expect(checkSplits([{ documentNumberBeneficiary: '12345678901' }]).map((e) => e.tag)).toEqual([
      'configSplit.0.documentNumberBeneficiary',
    ]);
  });
});

describe('validTaxId', () => {
  it.each([
    ['52998224725', true],
    ['52998224724', false],
    ['12345678909', true],
    ['11222333000181', true],
    ['11222333000180', false],
    ['00000000000', false],
    ['1234567890', false],
  ])('%s → %s', (doc, ok) => {
    expect(validTaxId(doc)).toBe(ok);
  });
});
