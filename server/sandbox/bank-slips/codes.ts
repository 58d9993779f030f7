/**
 * Boleto (FEBRABAN "cobrança") barcode and digitable line, and the Pix EMV BR Code that can
 * accompany a slip. Pure functions; the layouts:
 *
 * barcode (44): bank(3) currency(1 = "9") DV(1) factor(4) value(10, cents) free field(25)
 * digitable line (47): bank+currency+free[0..5)+DV10 | free[5..15)+DV10 | free[15..25)+DV10 |
 *   DV | factor+value
 */

/** Day zero of the due-date factor: 1997-10-07 (factor 1000 = 2000-07-03). */
const FACTOR_BASE = Date.UTC(1997, 9, 7);
const DAY = 86_400_000;
/** First due date a factor can express. */
export const FIRST_FACTOR_DATE = '2000-07-03';
/** Largest value a 10-digit barcode amount holds: R$ 99,999,999.99. */
export const MAX_BARCODE_CENTS = 9_999_999_999;

/**
 * The 4-digit due-date factor. It counts days since 1997-10-07 and, having reached 9999 on
 * 2025-02-21, restarts at 1000 on 2025-02-22 (FEBRABAN), i.e. it cycles every 9000 days.
 */
export function dueDateFactor(dueDate: string): number {
  const days = Math.round((Date.parse(`${dueDate}T00:00:00Z`) - FACTOR_BASE) / DAY);
  if (days < 1000) throw new RangeError(`due date before ${FIRST_FACTOR_DATE}`);
  return ((days - 1000) % 9000) + 1000;
}

/** Modulo 11 general check digit of the barcode (weights 2..9 from the right; 0, 10, 11 → 1). */
export function mod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Modulo 10 field check digit of the digitable line (weights 2,1,2,… from the right). */
export function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    const p = Number(digits[i]) * weight;
    sum += p > 9 ? p - 9 : p;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

export interface BarcodeInput {
  /** 3 digits. */
  bankCode: string;
  dueDate: string;
  cents: number;
  /** 25 digits, the bank's free field (our number, agreement…). */
  freeField: string;
}

export function barcode({ bankCode, dueDate, cents, freeField }: BarcodeInput): string {
  if (!/^\d{3}$/.test(bankCode)) throw new RangeError('bank code must be 3 digits');
  if (!/^\d{25}$/.test(freeField)) throw new RangeError('free field must be 25 digits');
  if (!Number.isInteger(cents) || cents < 0 || cents > MAX_BARCODE_CENTS) {
    throw new RangeError('value does not fit a barcode');
  }
  const factor = String(dueDateFactor(dueDate)).padStart(4, '0');
  const value = String(cents).padStart(10, '0');
  const withoutDv = `${bankCode}9${factor}${value}${freeField}`;
  return `${withoutDv.slice(0, 4)}${mod11(withoutDv)}${withoutDv.slice(4)}`;
}

/** The 47-digit digitable line of a 44-digit barcode. */
export function digitableLine(code: string): string {
  if (!/^\d{44}$/.test(code)) throw new RangeError('barcode must be 44 digits');
  const free = code.slice(19);
  const f1 = code.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${code[4]}${code.slice(5, 19)}`;
}

/** Checks a barcode's general digit (used by tests and by the pay route's sanity check). */
export function isValidBarcode(code: string): boolean {
  if (!/^\d{44}$/.test(code) || code[3] !== '9') return false;
  return Number(code[4]) === mod11(code.slice(0, 4) + code.slice(5));
}

/** CRC16-CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor. */
export function crc16CcittFalse(text: string): number {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new RangeError(`EMV field ${id} longer than 99`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** Uppercase ASCII without accents, as BR Code merchant fields require. */
function emvText(text: string, max: number): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ]/g, '')
    .toUpperCase()
    .trim()
    .slice(0, max);
}

export interface PixInput {
  /** The receiver's Pix key (an EVP, i.e. a random UUID, in the sandbox). */
  key: string;
  merchantName: string;
  merchantCity: string;
  cents: number;
  /** Up to 25 alphanumerics. */
  txid: string;
}

/** A Pix "copia e cola" EMV BR Code with its CRC16 (field 63). */
export function pixEmv({ key, merchantName, merchantCity, cents, txid }: PixInput): string {
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', key)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', (cents / 100).toFixed(2)) +
    tlv('58', 'BR') +
    tlv('59', emvText(merchantName, 25) || 'SANDBOX') +
    tlv('60', emvText(merchantCity, 15) || 'SAO PAULO') +
    tlv('62', tlv('05', txid.replace(/[^A-Za-z0-9]/g, '').slice(0, 25) || '***')) +
    '6304';
  return body + crc16CcittFalse(body).toString(16).toUpperCase().padStart(4, '0');
}
