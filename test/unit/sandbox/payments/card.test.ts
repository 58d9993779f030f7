import { describe, expect, it } from 'vitest';
import {
  checkCard,
  detectBrand,
  expiryValid,
  luhnValid,
  maskNumber,
} from '../../../../server/sandbox/payments/card';

describe('luhnValid', () => {
  it.each([
    ['4000000000002701', true],
    ['4000000000002702', false],
    ['340000000002708', true],
    ['6062825624254001', true],
    ['4000 0000 0000 2701', false],
    ['12345678901', false],
  ])('%s → %s', (n, ok) => expect(luhnValid(n)).toBe(ok));
});

describe('detectBrand (longest prefix first)', () => {
  it.each([
    ['4000000000002701', 'visa'],
    ['4011780000000000', 'elo'],
    ['4389350000000000', 'elo'],
    ['5067000000000000', 'elo'],
    ['6505290000002000', 'elo'],
    ['6062825624254001', 'hipercard'],
    ['3841000000000000', 'hipercard'],
    ['5200000000002235', 'mastercard'],
    ['2221000000000000', 'mastercard'],
    ['2720990000000000', 'mastercard'],
    ['340000000002708', 'amex'],
    ['370000000000002', 'amex'],
    ['6011000000000000', null],
    ['2721000000000000', null],
    ['5600000000000000', null],
  ])('%s → %s', (n, brand) => expect(detectBrand(n)).toBe(brand));
});

describe('maskNumber', () => {
  it('keeps first six and last four, 15 characters', () => {
    expect(maskNumber('4000000000002701')).toBe('400000*****2701');
    expect(maskNumber('340000000002708')).toBe('340000*****2708');
  });
});

describe('expiryValid (end of month, São Paulo time)', () => {
  // 2026-12-31 23:59 in São Paulo is 2027-01-01T02:59Z.
  it.each([
    ['12', '26', '2027-01-01T02:59:59Z', true],
    ['12', '26', '2027-01-01T03:00:00Z', false],
    ['11', '26', '2026-11-15T00:00:00Z', true],
    ['10', '26', '2026-11-15T00:00:00Z', false],
  ])('%s/%s at %s → %s', (m, y, at, ok) => expect(expiryValid(m, y, new Date(at))).toBe(ok));
});

describe('checkCard', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const good = {
    number: '4000000000002701',
    securityCode: '123',
    expirationMonth: '12',
    expirationYear: '29',
  };
  it('accepts a good card and names its brand', () => {
    expect(checkCard(good, now)).toEqual({ ok: true, brand: 'visa' });
  });
  it.each([
    [{ number: '4000000000002702' }, undefined, 'cardInfo.number'],
    [{ number: '6011000000000004' }, undefined, 'cardInfo.number'],
    [{}, 'mastercard' as const, 'cardInfo.brand'],
    [{ expirationMonth: '13' }, undefined, 'cardInfo.expirationMonth'],
    [{ expirationMonth: '10', expirationYear: '26' }, undefined, 'cardInfo.expirationYear'],
    [{ securityCode: '1234' }, undefined, 'cardInfo.securityCode'],
    [{ number: '340000000002708', securityCode: '123' }, undefined, 'cardInfo.securityCode'],
  ])('refuses %j (brand %s) naming %s', (patch, brand, tag) => {
    const r = checkCard({ ...good, ...patch }, now, brand);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.tag).toBe(tag);
      expect(r.description.startsWith(tag)).toBe(true);
    }
  });
});
