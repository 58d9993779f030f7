/**
 * Reais (the spec's decimals) to the cents a payment carries, rounded half up on the decimal
 * as written: `1.005` is 101 cents. `Math.round(1.005 * 100)` gives 100, because 1.005 is
 * stored as 1.00499999…; a plan amount has up to 6 decimals, so the sandbox and the BFF must
 * round it the same way, or the BFF would quote one price and the gateway charge another.
 */
export function reaisToCents(amount: number | string): number {
  const text = typeof amount === 'string' ? amount.trim() : String(amount);
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return Math.round(Number(amount) * 100);
  const decimals = (m[3] ?? '').padEnd(3, '0');
  const cents = Number(m[2]) * 100 + Number(decimals.slice(0, 2)) + (decimals[2]! >= '5' ? 1 : 0);
  return m[1] === '-' ? -cents : cents;
}

/** The most a payment's `amount` carries: 10 digits of cents (the spec's size). */
export const MAX_PAYMENT_CENTS = 9_999_999_999;
