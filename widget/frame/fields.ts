/**
 * The card form's text inputs as one table (Adyen style): what each one is called, how it is
 * typed, formatted and hinted, and when it is complete enough to move on. The template renders
 * every row the same way; the element wires one input handler to all of them.
 */
import type { CardBrand } from '../card/brand';
import { securityCodeLength } from '../card/brand';
import { formatDocument } from '../card/document';
import { formatExpiryInput, isExpiryComplete } from '../card/expiry';
import { formatCardInput, isCardNumberComplete } from '../card/number';
import type { Messages } from '../i18n/messages';
import { fmt } from '../i18n/messages';
import type { FieldName } from '../protocol/messages';
import { NAME_MAX } from './form-model';

/** A text input's spec; its name (`FIELDS`' key) is also the key of its label in the messages. */
export interface FieldSpec {
  autocomplete: string;
  numeric?: true;
  /** Upper case as typed (the name on the card). */
  caps?: true;
  /** Said after the label. */
  optional?: true;
  maxLength?: (brand: CardBrand | null) => number;
  placeholder?: (m: Messages) => string;
  hint?: (m: Messages, brand: CardBrand | null) => string;
  /** Rewrites what was typed; may move the caret. Returns the new value. */
  format?: (input: HTMLInputElement, deleting: boolean, brand: CardBrand | null) => string;
  /** Complete and valid: focus moves to the next field. */
  complete?: (value: string) => boolean;
}

export const FIELDS: Record<FieldName, FieldSpec> = {
  cardNumber: {
    autocomplete: 'cc-number',
    numeric: true,
    placeholder: (m) => m.cardNumberPlaceholder,
    format(input) {
      const { value, caret } = formatCardInput(
        input.value,
        input.selectionStart ?? input.value.length,
      );
      input.value = value;
      if (input.matches(':focus')) input.setSelectionRange(caret, caret);
      return value;
    },
    complete: isCardNumberComplete,
  },
  cardholderName: {
    autocomplete: 'cc-name',
    caps: true,
    maxLength: () => NAME_MAX,
  },
  expiry: {
    autocomplete: 'cc-exp',
    numeric: true,
    maxLength: () => 7,
    placeholder: (m) => m.expiryPlaceholder,
    format: (input, deleting) => (input.value = formatExpiryInput(input.value, deleting)),
    complete: (value) => isExpiryComplete(value),
  },
  securityCode: {
    autocomplete: 'cc-csc',
    numeric: true,
    maxLength: securityCodeLength,
    hint: (m, brand) =>
      brand === 'amex'
        ? m.securityCodeHintAmex
        : fmt(m.securityCodeHint, securityCodeLength(brand)),
    format: (input, _deleting, brand) =>
      (input.value = input.value.replace(/\D/g, '').slice(0, securityCodeLength(brand))),
  },
  document: {
    autocomplete: 'off',
    numeric: true,
    optional: true,
    maxLength: () => 18,
    hint: (m) => m.documentHint,
    format: (input) => (input.value = formatDocument(input.value)),
  },
};

/** Where focus goes when a field is complete (the next one the shopper types in). */
export const NEXT_FIELD: Partial<Record<FieldName, FieldName>> = {
  cardNumber: 'cardholderName',
  expiry: 'securityCode',
};
