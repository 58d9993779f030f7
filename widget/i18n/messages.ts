import type { FailureCode } from '../../server/bff/checkout-api';

/** Every text the frame and the host show. Shopper messages never reveal raw codes or fraud. */
export interface Messages {
  cardNumber: string;
  cardholderName: string;
  expiry: string;
  expiryHint: string;
  securityCode: string;
  securityCodeHint: (digits: number) => string;
  document: string;
  documentHint: string;
  optional: string;
  installments: string;
  installmentOption: (count: number, first: string, rest: string) => string;
  method: string;
  credit: string;
  debit: string;
  pay: (amount: string) => string;
  /** Subscription checkout: the pay button, the period and the consent line. */
  subscribe: string;
  every: (days: number) => string;
  consent: (amount: string, every: string) => string;
  paying: string;
  loading: string;
  waitingForHost: string;
  cardBrand: (brand: string) => string;
  errors: {
    required: string;
    cardIncomplete: string;
    cardInvalid: string;
    cardUnknownBrand: string;
    expiryInvalid: string;
    expiryPast: string;
    securityCodeInvalid: (digits: number) => string;
    nameInvalid: string;
    documentInvalid: string;
    fixFields: (count: number) => string;
  };
  failures: Record<FailureCode, string>;
  attemptsLeft: (n: number) => string;
  succeeded: string;
  succeededDetail: (amount: string) => string;
  challengeOpened: string;
  challengeTitle: string;
  close: string;
  frameTitle: string;
  sessionUnavailable: string;
}
