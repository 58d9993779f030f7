import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../../../widget/card/luhn';
import {
  caretAfterDigits,
  formatCardInput,
  formatCardNumber,
  isCardNumberComplete,
  validateCardNumber,
} from '../../../../widget/card/number';

describe('luhnValid', () => {
  it.each([
    ['4000000000002701', true],
    ['4000000000002702', false],
    ['340000000002708', true],
    ['6505290000002000', true],
    ['6062825624254001', true],
    ['5200000000002235', true],
    ['0', true],
    ['', false],
    ['4000 0000', false],
    ['79927398713', true],
    ['79927398710', false],
  ])('%s → %s', (n, ok) => expect(luhnValid(n)).toBe(ok));
});

describe('formatCardNumber', () => {
  it.each([
    ['4000000000002701', '4000 0000 0000 2701'],
    ['400000', '4000 00'],
    ['4000', '4000'],
    ['40000', '4000 0'],
    ['340000000002708', '3400 000000 02708'],
    ['3400000000027089999', '3400 000000 02708'],
    ['52000000000022359999', '5200 0000 0000 2235'],
    ['4000000000000000123', '4000 0000 0000 0000 123'],
    ['4000-0000 0000x2701', '4000 0000 0000 2701'],
    ['', ''],
  ])('%s → "%s"', (input, out) => expect(formatCardNumber(input)).toBe(out));
});

describe('formatCardInput keeps the caret after the same digit', () => {
  it.each([
    // typing at the end
    ['40000', 5, '4000 0', 6],
    // typing in the middle: caret after the 3rd digit stays after it
    ['4010 0000', 3, '4010 0000', 3],
    ['40100 000', 5, '4010 0000', 6],
    // deleting a space removes nothing but the caret stays put
    ['40000000', 4, '4000 0000', 4],
    ['4000 0000', 0, '4000 0000', 0],
    // pasted with dashes
    ['3400-000000-02708', 17, '3400 000000 02708', 17],
  ])('%s|%i → %s|%i', (raw, caret, value, outCaret) => {
    expect(formatCardInput(raw, caret)).toEqual({ value, caret: outCaret });
  });

  it('caretAfterDigits clamps to the end', () => {
    expect(caretAfterDigits('4000 00', 99)).toBe(7);
  });
});

describe('validateCardNumber', () => {
  it.each([
    ['', 'required'],
    ['4000', 'incomplete'],
    ['999999', 'unknown_brand'],
    ['9999999999999995', 'unknown_brand'],
    ['4000000000002701', null],
    ['4000 0000 0000 2701', null],
    ['4000000000002702', 'invalid'],
    ['400000000000270', 'incomplete'],
    ['4000000000000000006', null],
    ['340000000002708', null],
    ['34000000000270', 'incomplete'],
    ['5200000000002235', null],
    ['6505290000002000', null],
    ['6062825624254001', null],
  ])('%s → %s', (n, err) => expect(validateCardNumber(n)).toBe(err));
});

describe('isCardNumberComplete', () => {
  it.each([
    ['4000 0000 0000 2701', true],
    ['4000 0000 0000 270', false],
    ['4000 0000 0000 2702', false],
    ['3400 000000 02708', true],
    ['6505 2900 0000 2000', true],
    ['', false],
  ])('%s → %s', (input, out) => expect(isCardNumberComplete(input)).toBe(out));
});
