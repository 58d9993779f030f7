/** Expiry MM/YY: parsing, input formatting and the "not past" rule (valid to the month's end). */

export interface Expiry {
  /** Two digits, `01`–`12`. */
  month: string;
  /** Two digits. */
  year: string;
}

/** Inserts the slash as the shopper types: `1` → `1`, `12` → `12/`, `1228` → `12/28`. */
export function formatExpiryInput(raw: string, deleting = false): string {
  let digits = raw.replace(/\D/g, '');
  // A first digit above 1 can only be a month 02–09.
  if (digits.length === 1 && Number(digits) > 1) digits = `0${digits}`;
  digits = digits.slice(0, 4);
  if (digits.length < 2) return digits;
  if (digits.length === 2) return deleting ? digits : `${digits}/`;
  return `${digits.slice(0, 2)}/${digits.slice(2)}`;
}

/** `MM/YY` (also `MM/YYYY`, `MMYY`, spaces) → the parts, or null when it is not a date. */
export function parseExpiry(input: string): Expiry | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  const year = (m[2] ?? '').slice(-2);
  return { month: String(month).padStart(2, '0'), year };
}

export type ExpiryError = 'required' | 'invalid' | 'past' | 'too_far';

/**
 * A card is good through the last day of its expiry month (in the shopper's calendar).
 * More than 20 years ahead is a typo.
 */
export function validateExpiry(input: string, now: Date = new Date()): ExpiryError | null {
  if (input.trim() === '') return 'required';
  const exp = parseExpiry(input);
  if (!exp) return 'invalid';
  const century = Math.floor(now.getFullYear() / 100) * 100;
  const expMonths = (century + Number(exp.year)) * 12 + Number(exp.month) - 1;
  const nowMonths = now.getFullYear() * 12 + now.getMonth();
  if (expMonths < nowMonths) return 'past';
  if (expMonths - nowMonths > 20 * 12) return 'too_far';
  return null;
}
