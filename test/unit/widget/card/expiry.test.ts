import { describe, expect, it } from 'vitest';
import { formatExpiryInput, parseExpiry, validateExpiry } from '../../../../widget/card/expiry';

describe('parseExpiry', () => {
  it.each([
    ['12/28', { month: '12', year: '28' }],
    ['1/28', { month: '01', year: '28' }],
    ['0128', { month: '01', year: '28' }],
    ['01/2028', { month: '01', year: '28' }],
    [' 07 / 30 ', { month: '07', year: '30' }],
    ['13/28', null],
    ['00/28', null],
    ['12/2', null],
    ['ab/cd', null],
    ['', null],
  ])('%s', (input, out) => expect(parseExpiry(input)).toEqual(out));
});

describe('formatExpiryInput', () => {
  it.each([
    ['1', false, '1'],
    ['3', false, '03/'],
    ['12', false, '12/'],
    ['12', true, '12'],
    ['122', false, '12/2'],
    ['12/28', false, '12/28'],
    ['122028', false, '12/28'],
    ['12/2028', false, '12/28'],
    ['12 / 28', false, '12/28'],
    ['1/28', false, '01/28'],
    ['1/', false, '01/'],
    ['12/', false, '12/'],
    ['12/', true, '12'],
    ['12/2', true, '12/2'],
    ['12/289', false, '12/28'],
    ['12a28', false, '12/28'],
    ['', false, ''],
  ])('%s (deleting %s) → %s', (raw, deleting, out) => {
    expect(formatExpiryInput(raw, deleting)).toBe(out);
  });
});

describe('validateExpiry (now = 2026-11-23)', () => {
  const now = new Date(2026, 10, 23, 12, 0, 0);
  it.each([
    ['', 'required'],
    ['11/26', null],
    ['10/26', 'past'],
    ['12/26', null],
    ['01/27', null],
    ['12/25', 'past'],
    ['13/27', 'invalid'],
    ['1x/27', 'invalid'],
    ['11/46', null],
    ['12/46', 'too_far'],
  ])('%s → %s', (input, err) => expect(validateExpiry(input, now)).toBe(err));

  it('a card is good through the last moment of its month', () => {
    expect(validateExpiry('11/26', new Date(2026, 10, 30, 23, 59, 59))).toBeNull();
    expect(validateExpiry('11/26', new Date(2026, 11, 1, 0, 0, 0))).toBe('past');
  });
});
