/**
 * Card brand detection from the leading digits (DESIGN §3). Local detection drives the icon,
 * the format and the CVV length; the gateway has the last word on the brand.
 */

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

/**
 * Each brand's prefixes, space-separated: one prefix (`4`), or an inclusive range of prefixes of
 * one length (`506699-506778`).
 */
const RANGES: Record<CardBrand, string> = {
  visa: '4',
  mastercard: '51-55 2221-2720',
  amex: '34 37',
  hipercard: '606282 3841',
  elo:
    '401178 401179 431274 438935 451416 457393 457631 457632 504175 506699-506778 509000-509999 ' +
    '627780 636297 636368 650031-650033 650035-650051 650405-650439 650485-650538 650541-650598 ' +
    '650700-650718 650720-650727 650901-650978 651652-651679 655000-655019 655021-655058',
};

interface Rule {
  brand: CardBrand;
  length: number;
  low: number;
  high: number;
}

/** Every rule, longest prefix first, so Elo and Hipercard win over Visa and Mastercard. */
const RULES: readonly Rule[] = (Object.keys(RANGES) as CardBrand[])
  .flatMap((brand) =>
    RANGES[brand].split(' ').map((r): Rule => {
      const [low = '', high = low] = r.split('-');
      return { brand, length: low.length, low: Number(low), high: Number(high) };
    }),
  )
  .sort((a, b) => b.length - a.length);

/** The brand of a (possibly partial) card number, or null when no known prefix matches yet. */
export function detectBrand(input: string): CardBrand | null {
  const digits = input.replace(/\D/g, '');
  for (const rule of RULES) {
    if (digits.length < rule.length) continue;
    const prefix = Number(digits.slice(0, rule.length));
    if (prefix >= rule.low && prefix <= rule.high) return rule.brand;
  }
  return null;
}

/** Card number lengths each brand issues. */
export const CARD_LENGTHS: Record<CardBrand, readonly number[]> = {
  visa: [13, 16, 19],
  mastercard: [16],
  amex: [15],
  elo: [16],
  hipercard: [13, 16, 19],
};

/** How many digits the number field accepts for a brand (19 while the brand is unknown). */
export function maxCardLength(brand: CardBrand | null): number {
  return brand ? Math.max(...CARD_LENGTHS[brand]) : 19;
}

/** Security code length: 4 for Amex, 3 for the rest. */
export function securityCodeLength(brand: CardBrand | null): number {
  return brand === 'amex' ? 4 : 3;
}

/** A brand's display name, for its badge: `Visa`, `American Express`. */
export const brandName = (brand: CardBrand): string =>
  brand === 'amex' ? 'American Express' : brand[0]!.toUpperCase() + brand.slice(1);
