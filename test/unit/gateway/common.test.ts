import { describe, expect, it } from 'vitest';
import {
  decimal,
  decimalPlaces,
  intDigits,
  isCalendarDate,
  queryInt,
} from '../../../server/gateway/schemas/common';

describe('decimal(precision, scale)', () => {
  const d = decimal(10, 4);
  it.each([
    [0, true],
    [123456.1234, true],
    [1234567, false],
    [1.12345, false],
    [-5.5, true],
  ])('%s → %s', (v, ok) => {
    expect(d.safeParse(v).success).toBe(ok);
  });
  it('bounds the integer digits of values written in exponent form too', () => {
    const amount = decimal(18, 6); // 12 integer digits
    expect(amount.safeParse(999_999_999_999.5).success).toBe(true);
    expect(amount.safeParse(1e12).success).toBe(false);
    expect(amount.safeParse(1e21).success).toBe(false);
    expect(amount.safeParse(-1e300).success).toBe(false);
    expect(decimal(10, 4).safeParse(-999_999.9999).success).toBe(true);
  });
  it('counts decimal places, including exponent forms', () => {
    expect(decimalPlaces(1.5)).toBe(1);
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(42)).toBe(0);
  });
});

describe('intDigits', () => {
  it('bounds by digit count and rejects fractions', () => {
    expect(intDigits(2).safeParse(99).success).toBe(true);
    expect(intDigits(2).safeParse(100).success).toBe(false);
    expect(intDigits(2).safeParse(1.5).success).toBe(false);
    expect(intDigits(2).safeParse('3').success).toBe(false);
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2026-02-28', true],
    ['2026-02-29', false],
    ['2028-02-29', true],
    ['2026-13-01', false],
    ['2026-1-01', false],
  ])('%s → %s', (s, ok) => expect(isCalendarDate(s)).toBe(ok));
});

describe('queryInt', () => {
  const q = queryInt({ min: 1, max: 100 });
  it.each([
    ['10', 10],
    ['100', 100],
  ])('%s parses', (s, n) => expect(q.parse(s)).toBe(n));
  it.each(['101', '0', '-1', '1.5', 'abc', ''])('%s is refused', (s) => {
    expect(q.safeParse(s).success).toBe(false);
  });
});
