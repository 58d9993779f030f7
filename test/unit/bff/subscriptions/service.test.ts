import { describe, expect, it } from 'vitest';
import { BILLING_STATUSES } from '../../../../server/gateway/schemas';
import { FAILURE_CODES } from '../../../../server/bff/checkout-api';
import { firstBillingFailure } from '../../../../server/bff/subscriptions/service';

describe('firstBillingFailure', () => {
  it('a Paid first billing is no failure', () => {
    expect(firstBillingFailure('Paid')).toBeNull();
  });

  it.each([
    ['Denied', 'declined'],
    ['Opened', 'insufficient_funds'],
    ['PaymentInvalid', 'invalid_card'],
    ['Canceled', 'declined'],
  ] as const)('%s → %s', (status, code) => {
    expect(firstBillingFailure(status)).toBe(code);
  });

  it('every unpaid status maps to a shopper failure code', () => {
    for (const s of BILLING_STATUSES.filter((s) => s !== 'Paid')) {
      expect(FAILURE_CODES).toContain(firstBillingFailure(s));
    }
  });
});
