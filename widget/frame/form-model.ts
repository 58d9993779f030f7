/**
 * The card form's values and their validation, apart from the element so it is tested
 * without a DOM. Error codes here; texts come from i18n.
 */
import type { PaymentMethod } from '../../contract/checkout';
import type { CardBrand } from '../card/brand';
import { detectBrand, securityCodeLength } from '../card/brand';
import { validateDocument } from '../card/document';
import { parseExpiry, validateExpiry } from '../card/expiry';
import { digitsOnly, validateCardNumber } from '../card/number';
import { validateSecurityCode } from '../card/security-code';
import { fmt } from '../i18n/messages';
import type { FieldName, FieldState } from '../protocol/messages';
import type { FieldErrorTexts } from './field-errors';

export interface FormValues {
  cardNumber: string;
  cardholderName: string;
  expiry: string;
  securityCode: string;
  document: string;
  method: PaymentMethod;
  installments: number;
}

export const FIELD_ORDER: readonly FieldName[] = [
  'cardNumber',
  'cardholderName',
  'expiry',
  'securityCode',
  'document',
];

export type FieldError =
  'required' | 'incomplete' | 'invalid' | 'unknown_brand' | 'past' | 'too_far' | 'too_long';

export type FormErrors = Partial<Record<FieldName, FieldError>>;

export const NAME_MAX = 30;

export function validateName(name: string): FieldError | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'required';
  return trimmed.length > NAME_MAX ? 'too_long' : null;
}

export function validateForm(values: FormValues, now: Date = new Date()): FormErrors {
  const brand = detectBrand(values.cardNumber);
  const errors: FormErrors = {};
  const set = (field: FieldName, error: FieldError | null): void => {
    if (error) errors[field] = error;
  };
  set('cardNumber', validateCardNumber(values.cardNumber));
  set('cardholderName', validateName(values.cardholderName));
  set('expiry', validateExpiry(values.expiry, now));
  set('securityCode', validateSecurityCode(values.securityCode, brand));
  set('document', validateDocument(values.document));
  return errors;
}

export function fieldStates(values: FormValues, errors: FormErrors): Record<FieldName, FieldState> {
  const states = {} as Record<FieldName, FieldState>;
  for (const field of FIELD_ORDER) {
    states[field] = { valid: !errors[field], empty: values[field].trim() === '' };
  }
  return states;
}

/** The text for a field's error, in the shopper's language (`texts`: the page's table). */
export function errorText(
  texts: FieldErrorTexts,
  field: FieldName,
  error: FieldError,
  brand: CardBrand | null,
): string {
  const text = (texts[field] as Partial<Record<FieldError, string>>)[error] ?? '';
  return fmt(text, securityCodeLength(brand));
}

/** The card fields to encrypt; call only after `validateForm` found no error. */
export function cardSecrets(values: FormValues): {
  number: string;
  securityCode: string;
  expirationMonth: string;
  expirationYear: string;
} {
  const exp = parseExpiry(values.expiry);
  return {
    number: digitsOnly(values.cardNumber),
    securityCode: values.securityCode,
    expirationMonth: exp?.month ?? '',
    expirationYear: exp?.year ?? '',
  };
}
