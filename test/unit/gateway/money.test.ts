import { describe, expect, it } from 'vitest';
import { reaisToCents } from '../../../server/gateway/money';

describe('reaisToCents', () => {
  it.each([
    [49.9, 4990],
    [1.15, 115],
    [1.005, 101],
    [10.005, 1001],
    [0.125, 13],
    [1.0049, 100],
    [1.004999, 100],
    [0.001, 0],
    [0.005, 1],
    [999_999_999_999.995, 100_000_000_000_000],
    [123_456_789_012.34, 12_345_678_901_234],
    [7, 700],
    [-1.005, -101],
  ])('%s reais are %s cents', (reais, cents) => {
    expect(reaisToCents(reais)).toBe(cents);
  });

  it('reads the decimal strings the reconciliation answers', () => {
    expect(reaisToCents('123.4500')).toBe(12345);
    expect(reaisToCents(' 1.005 ')).toBe(101);
    expect(reaisToCents('12')).toBe(1200);
  });

  it('agrees with Math.round wherever two decimals are exact', () => {
    for (let cents = 0; cents < 100_000; cents += 7) {
      expect(reaisToCents(cents / 100)).toBe(cents);
    }
  });
});
