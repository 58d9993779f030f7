import type { FailureCode } from '../../contract/checkout';

/** `[one, other]`: the text for 1 and for any other count (`{0}` is the count). */
export type Plural = readonly [one: string, other: string];

/**
 * Every text the frame shows, as plain data: `{0}`, `{1}` are filled by `fmt`. The BFF writes
 * the shopper's locale into the frame page (JSON, not script), so no language weighs on the
 * frame bundle. Shopper messages never reveal raw codes or fraud.
 */
export interface Messages {
  cardNumber: string;
  cardNumberPlaceholder: string;
  cardholderName: string;
  expiry: string;
  /** The expiry placeholder; no hint repeats it. */
  expiryPlaceholder: string;
  securityCode: string;
  /** `{0}`: 3 or 4. */
  securityCodeHint: string;
  securityCodeHintAmex: string;
  document: string;
  documentHint: string;
  optional: string;
  installments: string;
  /** `{0}` the amount: one payment. */
  installmentOne: string;
  /** `{0}` count, `{1}` each installment. */
  installmentFree: string;
  /** Appended when count × installment is not the total; `{0}` the total. */
  installmentTotal: string;
  acceptedBrands: string;
  method: string;
  credit: string;
  debit: string;
  /** `{0}` the amount. */
  pay: string;
  /** Subscription checkout: the pay button, the period and the consent line. */
  subscribe: string;
  /** `{0}` days. */
  every: string;
  /** A plan billed until canceled: `{0}` amount, `{1}` period. */
  consent: string;
  /** A plan billed a number of times: `{0}` the count, `{1}` amount, `{2}` period. */
  consentCharges: Plural;
  /** Appended to the consent line of a plan with a trial; `{0}` its days. */
  trialConsent: Plural;
  paying: string;
  /** The outcome is not known yet: no retry, no other card. */
  confirming: string;
  loading: string;
  /** `{0}` the brand's name. */
  cardBrand: string;
  errors: {
    required: string;
    cardIncomplete: string;
    cardInvalid: string;
    cardUnknownBrand: string;
    expiryInvalid: string;
    expiryPast: string;
    /** `{0}` digits. */
    securityCodeInvalid: string;
    nameInvalid: string;
    documentInvalid: string;
    fixFields: Plural;
  };
  failures: Record<FailureCode, string>;
  attemptsLeft: Plural;
  succeeded: string;
  /** `{0}` the amount. */
  succeededDetail: string;
  /** A subscription started on a trial: nothing was charged. */
  subscribed: string;
  /** `{0}` the day of the first charge (`date`). */
  subscribedTrialDetail: string;
  /** A calendar day: `{0}` year, `{1}` month, `{2}` day (two digits each but the year). */
  date: string;
  challengeOpened: string;
  /** After a reload: a bank confirmation is waiting. */
  challengePending: string;
  challengeResume: string;
  /** Minutes left before the session expires. */
  expiresSoon: Plural;
  frameTitle: string;
  sessionUnavailable: string;
}

/** Fills `{0}`, `{1}`… with the arguments. */
export function fmt(template: string, ...args: readonly (string | number)[]): string {
  return template.replace(/\{(\d)\}/g, (_, i: string) => String(args[Number(i)] ?? ''));
}

/** The plural form for `n`, filled with `n` (then `args` as `{1}`, `{2}`…). */
export function plural(forms: Plural, n: number, ...args: readonly (string | number)[]): string {
  return fmt(n === 1 ? forms[0] : forms[1], n, ...args);
}
