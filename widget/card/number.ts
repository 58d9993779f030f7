/**
 * The card number field as parser, formatter and validator (Lion style): pure functions over
 * strings so the element only wires them to an input.
 */
import { CARD_LENGTHS, detectBrand, maxCardLength } from './brand';
import type { CardBrand } from './brand';
import { luhnValid } from './luhn';

/** Digit groups per brand: Amex 4-6-5, the rest 4-4-4-4(-3). */
export function cardGroups(brand: CardBrand | null): readonly number[] {
  return brand === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
}

export function digitsOnly(input: string): string {
  return input.replace(/\D/g, '');
}

/** Groups digits with single spaces: `4000 0000 0000 2701`, `3400 000000 02708`. */
export function formatCardNumber(input: string, brand = detectBrand(input)): string {
  const digits = digitsOnly(input).slice(0, maxCardLength(brand));
  const parts: string[] = [];
  let at = 0;
  for (const size of cardGroups(brand)) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  return parts.join(' ');
}

export interface Formatted {
  value: string;
  /** Where the caret goes in `value`. */
  caret: number;
}

/**
 * Reformats what the shopper typed and keeps the caret after the same digit it followed,
 * so editing in the middle of the number does not throw the caret to the end.
 */
export function formatCardInput(raw: string, caret: number): Formatted {
  const digitsBefore = digitsOnly(raw.slice(0, caret)).length;
  const brand = detectBrand(raw);
  const value = formatCardNumber(raw, brand);
  return { value, caret: caretAfterDigits(value, digitsBefore) };
}

/** The position in `value` right after its `count`-th digit (0 → start). */
export function caretAfterDigits(value: string, count: number): number {
  if (count <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < value.length; i++) {
    if (/\d/.test(value[i] ?? '')) seen++;
    if (seen === count) return i + 1;
  }
  return value.length;
}

export type CardNumberError = 'required' | 'unknown_brand' | 'incomplete' | 'invalid';

/** Validates a complete number: a known brand, one of its lengths and a good Luhn digit. */
export function validateCardNumber(input: string): CardNumberError | null {
  const digits = digitsOnly(input);
  if (digits.length === 0) return 'required';
  const brand = detectBrand(digits);
  if (!brand) return digits.length >= 6 ? 'unknown_brand' : 'incomplete';
  if (!CARD_LENGTHS[brand].includes(digits.length)) {
    return digits.length < maxCardLength(brand) ? 'incomplete' : 'invalid';
  }
  return luhnValid(digits) ? null : 'invalid';
}

/**
 * A number the form may move on from: valid and as long as its brand's usual card (15 for
 * Amex, 16 for the rest), so a 19-digit Visa is not cut short by an early jump.
 */
export function isCardNumberComplete(input: string): boolean {
  const digits = digitsOnly(input);
  return (
    validateCardNumber(digits) === null &&
    digits.length >= (detectBrand(digits) === 'amex' ? 15 : 16)
  );
}
