import { describe, expect, it } from 'vitest';
import { cardBehaviour } from '../../../../server/sandbox/payments/test-cards';
import { applyOverride, OutcomeQueue } from '../../../../server/sandbox/payments/outcomes';
import { luhnValid } from '../../../../server/sandbox/payments/card';

describe('cardBehaviour (DESIGN §5 table)', () => {
  it.each([
    ['4000000000002701', 'visa', 'frictionless', '00'],
    ['4000000000002503', 'visa', 'challenge', '00'],
    ['4000000000002370', 'visa', 'challenge_fail', '00'],
    ['4000000000002925', 'visa', 'frictionless_fail', '00'],
    ['5200000000002235', 'mastercard', 'frictionless', '00'],
    ['5200000000002151', 'mastercard', 'challenge', '00'],
    ['6505290000002000', 'elo', 'frictionless', '00'],
    ['6062825624254001', 'hipercard', 'frictionless', '00'],
    ['340000000002708', 'amex', 'frictionless', '00'],
    ['4000000000000002', 'visa', 'frictionless', '05'],
    ['4000000000009995', 'visa', 'frictionless', '51'],
    ['4000000000000069', 'visa', 'frictionless', '54'],
    ['4000000000000127', 'visa', 'frictionless', 'N7'],
    ['4000000000000465', 'visa', 'frictionless', '46'],
    ['4111111111111111', 'visa', 'frictionless', '00'],
  ])('%s → %s %s %s', (number, brand, threeDs, returnCode) => {
    expect(luhnValid(number)).toBe(true);
    expect(cardBehaviour(number)).toEqual({ brand, threeDs, returnCode });
  });

  it('marks 4000000000000119 as an internal error without 3DS', () => {
    expect(cardBehaviour('4000000000000119')).toEqual({
      brand: 'visa',
      threeDs: 'none',
      returnCode: '00',
      internalError: true,
    });
  });

  it('is null for an unknown brand', () => {
    expect(cardBehaviour('6011000000000004')).toBeNull();
  });
});

describe('outcome overrides', () => {
  it('are taken oldest first, count times each, and lay fields over the card', () => {
    const q = new OutcomeQueue();
    q.push({ count: 2, returnCode: '51' });
    q.push({ count: 1, internalError: true });
    const base = cardBehaviour('4000000000002701')!;
    expect(applyOverride(base, q.take())).toMatchObject({
      returnCode: '51',
      threeDs: 'frictionless',
    });
    expect(applyOverride(base, q.take()).returnCode).toBe('51');
    expect(applyOverride(base, q.take()).internalError).toBe(true);
    expect(q.take()).toBeNull();
    expect(applyOverride(base, null)).toEqual(base);
  });
});
