import { describe, expect, it } from 'vitest';
import {
  formatExpiryInput,
  isExpiryComplete,
  parseExpiry,
  validateExpiry,
} from '../../../../widget/card/expiry';

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
    ['13', false, '1'],
    ['00', false, '0'],
    ['19', false, '1'],
    ['10', false, '10/'],
    ['13/28', false, '01/28'],
    ['12/203', false, '12/203'],
    ['12/2030', false, '12/30'],
  ])('%s (deleting %s) → %s', (raw, deleting, out) => {
    expect(formatExpiryInput(raw, deleting)).toBe(out);
  });
});

/** What the field shows after typing `keys` one by one, each keystroke appended at the end. */
function typeKeys(keys: string): string[] {
  const shown: string[] = [];
  let value = '';
  for (const key of keys) {
    value = formatExpiryInput(value + key);
    shown.push(value);
  }
  return shown;
}

describe('typing the expiry key by key', () => {
  it('122030 gives 12/30', () => {
    expect(typeKeys('122030')).toEqual(['1', '12/', '12/2', '12/20', '12/203', '12/30']);
  });

  it('an impossible month never appears', () => {
    expect(typeKeys('13')).toEqual(['1', '1']);
    expect(typeKeys('1328')).toEqual(['1', '1', '12/', '12/8']);
    expect(typeKeys('0028')).toEqual(['0', '0', '02/', '02/8']);
    for (const keys of ['13', '19', '00', '1399', '0000']) {
      for (const shown of typeKeys(keys)) expect(shown).not.toMatch(/^(1[3-9]|00)/);
    }
  });

  it('4 then 28 gives 04/28', () => {
    expect(typeKeys('428')).toEqual(['04/', '04/2', '04/28']);
  });
});

describe('isExpiryComplete (now = 2026-11-23)', () => {
  const now = new Date(2026, 10, 23);
  it.each([
    ['12/30', true],
    ['11/26', true],
    ['12/20', false],
    ['12/203', false],
    ['12/3', false],
    ['10/26', false],
  ])('%s → %s', (input, out) => expect(isExpiryComplete(input, now)).toBe(out));
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
