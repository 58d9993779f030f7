/** Amounts in cents, shown in BRL. */

/**
 * `12345` → `R$ 123,45` (pt-BR formatting whatever the UI language: the currency is BRL), the
 * same string as `Intl.NumberFormat('pt-BR', {style: 'currency', currency: 'BRL'})` gives.
 * Written out because the first pt-BR `Intl.NumberFormat` costs the frame ≈ 50 ms of ICU
 * loading on its way to `checkout-ready` (measured with a CPU profile of the bench).
 */
export function formatBRL(cents: number): string {
  const whole = Math.round(Math.abs(cents));
  const units = Math.floor(whole / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const sign = cents < 0 && whole !== 0 ? '-' : '';
  return `${sign}R$\u00a0${units},${String(whole % 100).padStart(2, '0')}`;
}

/**
 * Splits a total into `count` installments of whole cents; the remainder goes on the first
 * one, so the parts always add up to the total.
 */
export function splitInstallments(totalCents: number, count: number): number[] {
  if (!Number.isInteger(totalCents) || totalCents < 0) throw new RangeError('total');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count');
  const base = Math.floor(totalCents / count);
  const parts = Array.from({ length: count }, () => base);
  parts[0] = base + (totalCents - base * count);
  return parts;
}

export interface InstallmentOption {
  count: number;
  /** The first installment (carries the remainder). */
  first: number;
  /** Each of the other installments. */
  rest: number;
}

/**
 * Options 1…max for a total (whole cents, as a session's); never an installment below one cent.
 * Each is `splitInstallments` of the total, written out: the frame shows them and bundles no
 * more than this.
 */
export function installmentOptions(totalCents: number, max: number): InstallmentOption[] {
  const limit = Math.max(1, Math.min(max, totalCents));
  return Array.from({ length: limit }, (_, i) => {
    const rest = Math.floor(totalCents / (i + 1));
    return { count: i + 1, first: totalCents - rest * i, rest };
  });
}
