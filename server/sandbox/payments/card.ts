import type { CardBrand } from '../../gateway/schemas/payments';

/**
 * Pure card checks the sandbox applies to every card it sees (payments, validate, vault).
 * The widget has its own copy for the browser (widget/card); the gateway has the last word.
 */

/** True when `number` (digits only) passes the Luhn mod-10 check. */
export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let d = number.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

type Range = readonly [lo: number, hi: number];

/** DESIGN §3 prefix table; ranges are inclusive, all of one prefix length per entry. */
const PREFIXES: readonly { brand: CardBrand; length: number; ranges: readonly Range[] }[] = [
  {
    brand: 'elo',
    length: 6,
    ranges: [
      [401178, 401179],
      [431274, 431274],
      [438935, 438935],
      [451416, 451416],
      [457393, 457393],
      [457631, 457632],
      [504175, 504175],
      [506699, 506778],
      [509000, 509999],
      [627780, 627780],
      [636297, 636297],
      [636368, 636368],
      [650031, 650033],
      [650035, 650051],
      [650405, 650439],
      [650485, 650538],
      [650541, 650598],
      [650700, 650718],
      [650720, 650727],
      [650901, 650978],
      [651652, 651679],
      [655000, 655019],
      [655021, 655058],
    ],
  },
  { brand: 'hipercard', length: 6, ranges: [[606282, 606282]] },
  { brand: 'hipercard', length: 4, ranges: [[3841, 3841]] },
  { brand: 'mastercard', length: 4, ranges: [[2221, 2720]] },
  {
    brand: 'mastercard',
    length: 2,
    ranges: [[51, 55]],
  },
  {
    brand: 'amex',
    length: 2,
    ranges: [
      [34, 34],
      [37, 37],
    ],
  },
  { brand: 'visa', length: 1, ranges: [[4, 4]] },
];

/** The brand of a card number by its longest matching prefix, or null when none matches. */
export function detectBrand(number: string): CardBrand | null {
  if (!/^\d+$/.test(number)) return null;
  for (const entry of PREFIXES) {
    if (number.length < entry.length) continue;
    const prefix = Number(number.slice(0, entry.length));
    if (entry.ranges.some(([lo, hi]) => prefix >= lo && prefix <= hi)) return entry.brand;
  }
  return null;
}

/** Security code length of a brand: four digits for Amex, three for the others. */
export function securityCodeLength(brand: CardBrand): 3 | 4 {
  return brand === 'amex' ? 4 : 3;
}

/** First six, five asterisks, last four: the only form of a number the sandbox keeps. */
export function maskNumber(number: string): string {
  return `${number.slice(0, 6)}*****${number.slice(-4)}`;
}

/** Brasília time (America/Sao_Paulo has had no daylight saving time since 2019): UTC-3. */
const SAO_PAULO_OFFSET_MS = -3 * 3_600_000;

/**
 * True when a card expiring in `month`/`year` (two digits each, year 20YY) is still valid at
 * `now`: a card is good through the last day of its month in São Paulo time.
 */
export function expiryValid(month: string, year: string, now: Date): boolean {
  const m = Number(month);
  const y = 2000 + Number(year);
  if (!Number.isInteger(m) || m < 1 || m > 12 || !/^\d{2}$/.test(year)) return false;
  // First instant of the next month, São Paulo time, as a UTC instant.
  const endUtc = Date.UTC(y, m, 1) - SAO_PAULO_OFFSET_MS;
  return now.getTime() < endUtc;
}

/** A card in the clear, only ever held in memory for the length of one request. */
export interface PlainCard {
  number: string;
  securityCode: string | undefined;
  expirationMonth: string;
  expirationYear: string;
}

export type CardCheck =
  { ok: true; brand: CardBrand } | { ok: false; tag: string; description: string };

/**
 * Checks a card: Luhn, known brand, `brand` (when given) matching the number, expiry not past,
 * security code of the brand's length (when present). Tags name the `cardInfo` field.
 */
export function checkCard(card: PlainCard, now: Date, declaredBrand?: CardBrand): CardCheck {
  const fail = (field: string, description: string): CardCheck => ({
    ok: false,
    tag: `cardInfo.${field}`,
    description: `cardInfo.${field}: ${description}`,
  });
  if (!/^\d{12,19}$/.test(card.number)) return fail('number', 'must be 12 to 19 digits');
  if (!luhnValid(card.number)) return fail('number', 'is not a valid card number (Luhn check)');
  const brand = detectBrand(card.number);
  if (!brand) {
    return fail('number', 'brand not accepted (visa, mastercard, amex, elo, hipercard)');
  }
  if (declaredBrand && declaredBrand !== brand) {
    return fail('brand', `does not match the card number (${brand})`);
  }
  if (!/^(0[1-9]|1[0-2])$/.test(card.expirationMonth)) {
    return fail('expirationMonth', 'must be two digits 01 to 12');
  }
  if (!/^\d{2}$/.test(card.expirationYear)) return fail('expirationYear', 'must be two digits');
  if (!expiryValid(card.expirationMonth, card.expirationYear, now)) {
    return fail('expirationYear', 'the card has expired');
  }
  if (card.securityCode !== undefined) {
    const len = securityCodeLength(brand);
    if (!new RegExp(`^\\d{${len}}$`).test(card.securityCode)) {
      return fail('securityCode', `must be ${len} digits for ${brand}`);
    }
  }
  return { ok: true, brand };
}
