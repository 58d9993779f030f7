/**
 * Each field's error texts by error code, in the shopper's language. The BFF builds the table
 * from the messages and writes it into the frame page (server/bff/pages/frame-data.ts), so the
 * mapping weighs on the page, not on the frame bundle. `{0}`: the security code's length.
 */
import type { DocumentError } from '../card/document';
import type { ExpiryError } from '../card/expiry';
import type { CardNumberError } from '../card/number';
import type { SecurityCodeError } from '../card/security-code';
import type { Messages } from '../i18n/messages';
import type { FieldError } from './form-model';

/** Every error each field's check can give (`validateForm`). */
export interface FieldErrorTexts {
  cardNumber: Record<CardNumberError, string>;
  cardholderName: Record<Extract<FieldError, 'required' | 'too_long'>, string>;
  expiry: Record<ExpiryError, string>;
  securityCode: Record<SecurityCodeError, string>;
  document: Record<DocumentError, string>;
}

export function fieldErrorTexts({ errors: e }: Messages): FieldErrorTexts {
  return {
    cardNumber: {
      required: e.required,
      incomplete: e.cardIncomplete,
      unknown_brand: e.cardUnknownBrand,
      invalid: e.cardInvalid,
    },
    cardholderName: { required: e.required, too_long: e.nameInvalid },
    expiry: {
      required: e.required,
      invalid: e.expiryInvalid,
      past: e.expiryPast,
      too_far: e.expiryInvalid,
    },
    securityCode: { required: e.required, invalid: e.securityCodeInvalid },
    document: { invalid: e.documentInvalid },
  };
}
