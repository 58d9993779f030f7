/** Expiry MM/YY: parsing, input formatting and the "not past" rule (valid to the month's end). */

export interface Expiry {
  /** Two digits, `01`–`12`. */
  month: string;
  /** Two digits. */
  year: string;
}

/**
 * Formats the field as the shopper types or autofills: `1` → `1`, `3` → `03/`, `12` → `12/`,
 * `1228` → `12/28`, `1/28` → `01/28`, and a four-digit year from autofill, `12/2028` or
 * `122028`, → `12/28`. While deleting, a trailing slash is not put back.
 */
export function formatExpiryInput(raw: string, deleting = false): string {
  const parts = /^\s*(\d{1,2})\s*\/\s*(\d*)\s*$/.exec(raw);
  if (parts) {
    const month = (parts[1] ?? '').padStart(2, '0');
    let year = parts[2] ?? '';
    if (year.length === 4) year = year.slice(2);
    year = year.slice(0, 2);
    return year === '' && deleting ? month : `${month}/${year}`;
  }
  let digits = raw.replace(/\D/g, '');
  if (digits.length === 6) digits = digits.slice(0, 2) + digits.slice(4);
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
