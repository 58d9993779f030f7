/** CPF (11 digits) and CNPJ (14 digits): masks and check digits. */

export type DocumentType = 'cpf' | 'cnpj';

export interface TaxDocument {
  type: DocumentType;
  /** Digits only. */
  number: string;
}

/**
 * The mod-11 check digit of the first `n` digits: weights 2, 3, … from the right, wrapping
 * back to 2 after `top` (CNPJ: 9; CPF: none).
 */
function checkDigit(d: string, n: number, top = 99): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Number(d[i]) * (((n - 1 - i) % (top - 1)) + 2);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** Both check digits (the last two of `len`) are right, and the digits are not all the same. */
function checked(input: string, len: number, top?: number): boolean {
  const d = input.replace(/\D/g, '');
  return (
    d.length === len &&
    !/^(\d)\1*$/.test(d) &&
    checkDigit(d, len - 2, top) === Number(d[len - 2]) &&
    checkDigit(d, len - 1, top) === Number(d[len - 1])
  );
}

export const isValidCpf = (input: string): boolean => checked(input, 11);

export const isValidCnpj = (input: string): boolean => checked(input, 14, 9);

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
