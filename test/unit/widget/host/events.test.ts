import { describe, expect, it } from 'vitest';
import {
  CheckoutChallengeEvent,
  CheckoutChangeEvent,
  CheckoutFailedEvent,
  CheckoutReadyEvent,
  CheckoutSubmitEvent,
  CheckoutSucceededEvent,
} from '../../../../widget/host/events';

const fields = {
  cardNumber: { valid: true, empty: false },
  cardholderName: { valid: true, empty: false },
  expiry: { valid: false, empty: true },
  securityCode: { valid: false, empty: true },
  document: { valid: true, empty: true },
};

describe('host events', () => {
  it.each([
    ['checkout-ready', new CheckoutReadyEvent()],
    ['checkout-change', new CheckoutChangeEvent('visa', false, fields)],
    ['checkout-submit', new CheckoutSubmitEvent()],
    ['checkout-challenge', new CheckoutChallengeEvent('closed', 'timeout')],
    [
      'checkout-succeeded',
      new CheckoutSucceededEvent(
        { paymentId: 'pay_1', authorizationCode: '123456', amount: 4990 },
        'debit',
      ),
    ],
    ['checkout-failed', new CheckoutFailedEvent('declined', 'Não autorizado.', true)],
  ] as const)('%s bubbles out of the shadow root', (type, event) => {
    expect(event.type).toBe(type);
    expect(event.bubbles).toBe(true);
    expect(event.composed).toBe(true);
  });

  it('carry their data as properties', () => {
    const ok = new CheckoutSucceededEvent(
      { paymentId: 'pay_1', authorizationCode: '123456', amount: 4990, subscriptionId: 'sub_1' },
      'credit',
    );
    expect(ok).toMatchObject({
      paymentId: 'pay_1',
      authorizationCode: '123456',
      amount: 4990,
      subscriptionId: 'sub_1',
      method: 'credit',
    });
    expect(ok.trial).toBeUndefined();
    const trial = { days: 7, firstChargeOn: '2026-12-03' };
    const started = new CheckoutSucceededEvent(
      { paymentId: '', authorizationCode: '', amount: 0, subscriptionId: 'sub_2', trial },
      'credit',
    );
    expect(started).toMatchObject({ amount: 0, subscriptionId: 'sub_2', trial });
    const change = new CheckoutChangeEvent('amex', true, fields);
    expect(change.brand).toBe('amex');
    expect(change.fields.expiry).toEqual({ valid: false, empty: true });
    const failed = new CheckoutFailedEvent('challenge_timeout', 'x', false);
    expect(failed).toMatchObject({ code: 'challenge_timeout', retryable: false });
    expect(new CheckoutChallengeEvent('opened').reason).toBeUndefined();
  });
});
