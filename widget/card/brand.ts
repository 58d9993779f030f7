/**
 * Card brand detection from the leading digits (DESIGN §3). Local detection drives the icon,
 * the format and the CVV length; the gateway has the last word on the brand. The prefixes,
 * lengths and names are data (`./brand-table.ts`; in the frame, the page's copy).
 */
import { BRAND_TABLE } from './brand-table';

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

/** The brand of a (possibly partial) card number, or null when no known prefix matches yet. */
export function detectBrand(input: string): CardBrand | null {
  const digits = input.replace(/\D/g, '');
  for (const [brand, length, low, high] of BRAND_TABLE.rules) {
    if (digits.length < length) continue;
    const prefix = Number(digits.slice(0, length));
    if (prefix >= low && prefix <= high) return brand;
  }
  return null;
}

/** Card number lengths each brand issues. */
export const CARD_LENGTHS = BRAND_TABLE.lengths;

/** How many digits the number field accepts for a brand (19 while the brand is unknown). */
export function maxCardLength(brand: CardBrand | null): number {
  return brand ? Math.max(...CARD_LENGTHS[brand]) : 19;
}

/** Security code length: 4 for Amex, 3 for the rest. */
export function securityCodeLength(brand: CardBrand | null): number {
  return brand === 'amex' ? 4 : 3;
}

/** A brand's display name, for its badge: `Visa`, `American Express`. */
export const brandName = (brand: CardBrand): string => BRAND_TABLE.names[brand];
