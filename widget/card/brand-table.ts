/**
 * The brands' data: which prefixes make each brand, the lengths it issues and its display name.
 * The frame does not bundle this table: the BFF writes it into the frame page's data block
 * (server/bff/pages/frame-data.ts), and the frame build resolves this module to
 * `widget/frame/brand-table.ts`, which reads it there (vite.config.ts). Tests and the BFF use
 * it as it is.
 */
import type { CardBrand } from './brand';

/**
 * `[brand, length, low, high]`: numbers whose first `length` digits, as a number, lie in
 * `low`…`high` are of `brand` (a tuple: the page carries dozens).
 */
export type BrandRule = readonly [brand: CardBrand, length: number, low: number, high: number];

export interface BrandTable {
  /** Longest prefix first, so Elo and Hipercard win over Visa and Mastercard. */
  rules: readonly BrandRule[];
  /** Card number lengths each brand issues. */
  lengths: Record<CardBrand, readonly number[]>;
  /** For badges: `Visa`, `American Express`. */
  names: Record<CardBrand, string>;
}

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

export const BRAND_TABLE: BrandTable = {
  rules: (Object.keys(RANGES) as CardBrand[])
    .flatMap((brand) =>
      RANGES[brand].split(' ').map((r): BrandRule => {
        const [low = '', high = low] = r.split('-');
        return [brand, low.length, Number(low), Number(high)];
      }),
    )
    .sort((a, b) => b[1] - a[1]),
  lengths: {
    visa: [13, 16, 19],
    mastercard: [16],
    amex: [15],
    elo: [16],
    hipercard: [13, 16, 19],
  },
  names: {
    visa: 'Visa',
    mastercard: 'Mastercard',
    amex: 'American Express',
    elo: 'Elo',
    hipercard: 'Hipercard',
  },
};
