import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBRL, installmentOptions, splitInstallments } from '../../../../widget/card/money';

const nbsp = '\u00a0';

describe('formatBRL', () => {
  it.each([
    [0, `R$${nbsp}0,00`],
    [1, `R$${nbsp}0,01`],
    [10000, `R$${nbsp}100,00`],
    [123456789, `R$${nbsp}1.234.567,89`],
  ])('%i → %s', (cents, out) => expect(formatBRL(cents)).toBe(out));

  it('writes exactly what Intl.NumberFormat writes for BRL in pt-BR', () => {
    const intl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (cents) => {
        expect(formatBRL(cents)).toBe(intl.format(cents / 100));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('splitInstallments', () => {
  it.each([
    [10000, 1, [10000]],
    [10000, 3, [3334, 3333, 3333]],
    [10001, 2, [5001, 5000]],
    [100, 12, [12, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]],
    [12, 12, Array(12).fill(1)],
  ])('%i in %i', (total, n, parts) => {
    expect(splitInstallments(total, n)).toEqual(parts);
    expect(splitInstallments(total, n).reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('rejects nonsense', () => {
    expect(() => splitInstallments(100, 0)).toThrow(RangeError);
    expect(() => splitInstallments(1.5, 1)).toThrow(RangeError);
  });
});

describe('installmentOptions', () => {
  it('lists 1…max with the first installment carrying the remainder', () => {
    expect(installmentOptions(10000, 3)).toEqual([
      { count: 1, first: 10000, rest: 10000 },
      { count: 2, first: 5000, rest: 5000 },
      { count: 3, first: 3334, rest: 3333 },
    ]);
  });

  it('each option is the split of the total: the first carries the remainder', () => {
    for (const total of [0, 1, 2, 11, 12, 13, 99, 100, 101, 4990, 10001, 123457]) {
      for (const option of installmentOptions(total, 12)) {
        const parts = splitInstallments(total, option.count);
        expect(option).toEqual({ count: option.count, first: parts[0], rest: parts.at(-1) });
      }
    }
  });

  it('never makes an installment below one cent', () => {
    expect(installmentOptions(3, 12)).toHaveLength(3);
    expect(installmentOptions(500, 0)).toHaveLength(1);
  });
});
