/**
 * Events of `<card-checkout>`: each a class, all `bubbles` and `composed`, none carrying card
 * data (only the brand and per-field validity).
 */
import type { FailureCode, PaymentMethod, SubscriptionTrial } from '../../contract/checkout';
import type { CardBrand } from '../card/brand';
import type { FieldName, FieldState, SucceededPayment } from '../protocol/messages';

const init: EventInit = { bubbles: true, composed: true };

/** The form is loaded and can be filled in. */
export class CheckoutReadyEvent extends Event {
  constructor() {
    super('checkout-ready', init);
  }
}

/** The shopper edited a field: the detected brand, whether all is complete, each field's state. */
export class CheckoutChangeEvent extends Event {
  constructor(
    readonly brand: CardBrand | null,
    readonly complete: boolean,
    readonly fields: Readonly<Record<FieldName, FieldState>>,
  ) {
    super('checkout-change', init);
  }
}

/** A payment attempt started (the pay button or `submit()`), after the fields validated. */
export class CheckoutSubmitEvent extends Event {
  constructor() {
    super('checkout-submit', init);
  }
}

/** The 3DS challenge dialog opened, or closed (answered, closed by the shopper, timed out). */
export class CheckoutChallengeEvent extends Event {
  constructor(
    readonly state: 'opened' | 'closed',
    readonly reason?: 'answered' | 'closed' | 'timeout',
  ) {
    super('checkout-challenge', init);
  }
}

/** The payment was approved (as read from the BFF by the frame). */
export class CheckoutSucceededEvent extends Event {
  readonly paymentId: string;
  readonly authorizationCode: string;
  /** Cents. */
  readonly amount: number;
  readonly subscriptionId: string | undefined;
  /** A subscription started on a trial: nothing was charged (`amount` 0) until `firstChargeOn`. */
  readonly trial: SubscriptionTrial | undefined;
  constructor(
    payment: SucceededPayment,
    readonly method: PaymentMethod,
  ) {
    super('checkout-succeeded', init);
    this.paymentId = payment.paymentId;
    this.authorizationCode = payment.authorizationCode;
    this.amount = payment.amount;
    this.subscriptionId = payment.subscriptionId;
    this.trial = payment.trial;
  }
}

/** An attempt failed; `retryable` says whether the shopper can try again in this session. */
export class CheckoutFailedEvent extends Event {
  constructor(
    readonly code: FailureCode,
    readonly message: string,
    readonly retryable: boolean,
  ) {
    super('checkout-failed', init);
  }
}

declare global {
  interface HTMLElementEventMap {
    'checkout-ready': CheckoutReadyEvent;
    'checkout-change': CheckoutChangeEvent;
    'checkout-submit': CheckoutSubmitEvent;
    'checkout-challenge': CheckoutChallengeEvent;
    'checkout-succeeded': CheckoutSucceededEvent;
    'checkout-failed': CheckoutFailedEvent;
  }
}
