/** Expiry MM/YY: parsing, input formatting and the "not past" rule (valid to the month's end). */

export interface Expiry {
  /** Two digits, `01`–`12`. */
  month: string;
  /** Two digits. */
  year: string;
}

/**
 * Formats the field as the shopper types or autofills: `1` → `1`, `3` → `03/`, `12` → `12/`,
 * `1228` → `12/28`, `1/28` → `01/28`. An impossible month is refused as it is typed (`13`
 * stays `1`, `00` stays `0`). A four-digit year, typed or autofilled (`12/2030`, `122030`),
 * becomes `12/30`: while typing, `12/20` may grow to `12/203` and then `12/30`. While
 * deleting, a trailing slash is not put back.
 */
export function formatExpiryInput(raw: string, deleting = false): string {
  const parts = /^\s*(\d{1,2})\s*\/\s*(\d*)\s*$/.exec(raw);
  if (parts) {
    const month = validMonthPrefix(parts[1] ?? '').padStart(2, '0');
    if (month === '00') return '0';
    let year = parts[2] ?? '';
    // A year typed in full: keep `20x` until its fourth digit, then its last two.
    if (year.length >= 4) year = year.slice(2, 4);
    else if (year.length === 3 && !year.startsWith('20')) year = year.slice(0, 2);
    return year === '' && deleting ? month : `${month}/${year}`;
  }
  let digits = raw.replace(/\D/g, '');
  if (digits.length === 6) digits = digits.slice(0, 2) + digits.slice(4);
  // A first digit above 1 can only be a month 02–09.
  if (digits.length === 1 && Number(digits) > 1) digits = `0${digits}`;
  const month = validMonthPrefix(digits.slice(0, 2));
  if (month.length < 2) return month;
  digits = month + digits.slice(2, 4);
  if (digits.length === 2) return deleting ? digits : `${digits}/`;
  return `${digits.slice(0, 2)}/${digits.slice(2)}`;
}

/** The longest start of `mm` that can begin a month: `13` → `1`, `00` → `0`, `3` → `3`. */
function validMonthPrefix(mm: string): string {
  if (mm.length < 2) return mm;
  const n = Number(mm);
  return n >= 1 && n <= 12 ? mm : mm.slice(0, 1);
}

/** A typed expiry that is whole (`MM/YY`) and not past: the form may move on. */
export function isExpiryComplete(input: string, now: Date = new Date()): boolean {
  return /^\d\d\/\d\d$/.test(input) && validateExpiry(input, now) === null;
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
