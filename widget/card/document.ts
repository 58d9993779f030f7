/** CPF (11 digits) and CNPJ (14 digits): masks and check digits. */

export type DocumentType = 'cpf' | 'cnpj';

export interface TaxDocument {
  type: DocumentType;
  /** Digits only. */
  number: string;
}

function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * (weights[i] ?? 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const allSame = (digits: string): boolean => /^(\d)\1*$/.test(digits);

export function isValidCpf(input: string): boolean {
  const d = input.replace(/\D/g, '');
  if (d.length !== 11 || allSame(d)) return false;
  const first = checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === Number(d[9]) && second === Number(d[10]);
}

export function isValidCnpj(input: string): boolean {
  const d = input.replace(/\D/g, '');
  if (d.length !== 14 || allSame(d)) return false;
  const first = checkDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === Number(d[12]) && second === Number(d[13]);
}

function mask(digits: string, pattern: string): string {
  let out = '';
  let i = 0;
  for (const ch of pattern) {
    if (i >= digits.length) break;
    out += ch === '0' ? digits[i++] : ch;
  }
  return out;
}

/** Masks as typed: up to 11 digits as CPF `000.000.000-00`, then CNPJ `00.000.000/0000-00`. */
export function formatDocument(input: string): string {
  const d = input.replace(/\D/g, '').slice(0, 14);
  return d.length <= 11 ? mask(d, '000.000.000-00') : mask(d, '00.000.000/0000-00');
}

export type DocumentError = 'invalid';

/** An empty field is fine (the document is optional); otherwise a valid CPF or CNPJ. */
export function parseDocument(input: string): TaxDocument | null {
  const d = input.replace(/\D/g, '');
  if (d.length === 11 && isValidCpf(d)) return { type: 'cpf', number: d };
  if (d.length === 14 && isValidCnpj(d)) return { type: 'cnpj', number: d };
  return null;
}

export function validateDocument(input: string): DocumentError | null {
  if (input.replace(/\D/g, '') === '') return null;
  return parseDocument(input) ? null : 'invalid';
}
