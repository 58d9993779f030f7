import { describe, expect, it } from 'vitest';
import { chargeOutcome, retryDelayDays } from '../../../../server/sandbox/recurrence/engine';
import { CreatePlanBodySchema } from '../../../../server/sandbox/recurrence/schemas';

describe('retryDelayDays', () => {
  it.each([
    // failures so far, attempts, days to the next try
    [1, 1, 2],
    [2, 1, null],
    [1, 4, 2],
    [2, 4, 2],
    [3, 4, 4],
    [4, 4, 8],
    [5, 4, null],
    [1, 0, null],
    [0, 4, null],
  ])('after %i failure(s) with attempts %i → %s', (failures, attempts, days) => {
    expect(retryDelayDays(failures, attempts)).toBe(days);
  });

  it('puts the tries of a due day 1 with attempts 4 on days 1, 3, 5, 9 and 17', () => {
    const days = [1];
    for (let failures = 1; ; failures++) {
      const delay = retryDelayDays(failures, 4);
      if (delay === null) break;
      days.push(days[days.length - 1]! + delay);
    }
    expect(days).toEqual([1, 3, 5, 9, 17]);
  });
});

describe('chargeOutcome', () => {
  const declined = (returnCode: string) =>
    ({ ok: false, reason: 'declined', returnCode, description: 'x' }) as const;

  it('maps each answer to the billing state', () => {
    expect(chargeOutcome({ ok: true, payment: { paymentId: 'p1' } }, 0, 4)).toEqual({
      status: 'Paid',
      paymentId: 'p1',
    });
    expect(chargeOutcome(declined('51'), 0, 4).status).toBe('Retry');
    expect(chargeOutcome(declined('51'), 3, 4).status).toBe('Retry');
    expect(chargeOutcome(declined('51'), 4, 4)).toMatchObject({ status: 'Denied', block: false });
    expect(chargeOutcome(declined('51'), 0, 0)).toMatchObject({ status: 'Denied' });
    expect(chargeOutcome(declined('46'), 0, 4)).toMatchObject({ status: 'Denied', block: true });
    expect(chargeOutcome(declined('05'), 0, 4)).toMatchObject({ status: 'Denied', block: false });
    expect(chargeOutcome({ ok: false, reason: 'error', description: 'boom' }, 0, 4).status).toBe(
      'PaymentInvalid',
    );
    expect(
      chargeOutcome({ ok: false, reason: 'not_found', description: 'gone' }, 0, 4).status,
    ).toBe('PaymentInvalid');
  });
});

describe('CreatePlanBodySchema', () => {
  const base = {
    name: 'n',
    description: 'd',
    amount: 1,
    planType: 'Custom',
    paymentMethod: 'CreditCard',
  };
  it.each([
    [{ ...base, interval: 20, installments: 1 }, true],
    [{ ...base, interval: 19, installments: 1 }, false],
    [{ ...base, interval: 20, installments: 0 }, false],
    [{ ...base, planType: 'Yearly' }, true],
    [{ ...base, planType: 'Yearly', interval: 365, installments: 0 }, true],
    // Plan rule 2: non-Custom types set interval and installments; values sent are overwritten.
    [{ ...base, planType: 'Yearly', interval: 30 }, true],
    [{ ...base, planType: 'Monthly', amount: '999999999999.99' }, true],
    [{ ...base, planType: 'Monthly', amount: 0.001 }, false],
  ])('%# → %s', (body, ok) => {
    expect(CreatePlanBodySchema.safeParse(body).success).toBe(ok);
  });
});
