import { describe, expect, it } from 'vitest';
import {
  brandName,
  CARD_BRANDS,
  detectBrand,
  maxCardLength,
  securityCodeLength,
} from '../../../../widget/card/brand';

describe('detectBrand', () => {
  it.each([
    ['4000000000002701', 'visa'],
    ['4', 'visa'],
    ['4011', 'visa'],
    ['401178', 'elo'],
    ['4011790000000000', 'elo'],
    ['431274', 'elo'],
    ['438935', 'elo'],
    ['451416', 'elo'],
    ['457393', 'elo'],
    ['457631', 'elo'],
    ['457632', 'elo'],
    ['457633', 'visa'],
    ['504175', 'elo'],
    ['506698', null],
    ['506699', 'elo'],
    ['506778', 'elo'],
    ['506779', null],
    ['509000', 'elo'],
    ['509999', 'elo'],
    ['627780', 'elo'],
    ['636297', 'elo'],
    ['636368', 'elo'],
    ['650030', null],
    ['650031', 'elo'],
    ['650033', 'elo'],
    ['650034', null],
    ['650035', 'elo'],
    ['650051', 'elo'],
    ['650405', 'elo'],
    ['650439', 'elo'],
    ['650485', 'elo'],
    ['6505290000002000', 'elo'],
    ['650538', 'elo'],
    ['650539', null],
    ['650541', 'elo'],
    ['650598', 'elo'],
    ['650700', 'elo'],
    ['650718', 'elo'],
    ['650719', null],
    ['650720', 'elo'],
    ['650727', 'elo'],
    ['650901', 'elo'],
    ['650978', 'elo'],
    ['651652', 'elo'],
    ['651679', 'elo'],
    ['655000', 'elo'],
    ['655019', 'elo'],
    ['655020', null],
    ['655021', 'elo'],
    ['655058', 'elo'],
    ['655059', null],
    ['5200000000002235', 'mastercard'],
    ['51', 'mastercard'],
    ['55', 'mastercard'],
    ['50', null],
    ['56', null],
    ['2220', null],
    ['2221', 'mastercard'],
    ['2720', 'mastercard'],
    ['2721', null],
    ['340000000002708', 'amex'],
    ['37', 'amex'],
    ['35', null],
    ['6062825624254001', 'hipercard'],
    ['606282', 'hipercard'],
    ['3841', 'hipercard'],
    ['384100', 'hipercard'],
    ['3842', null],
    ['6', null],
    ['', null],
    ['4000 0000 0000 2701', 'visa'],
  ])('%s → %s', (input, brand) => {
    expect(detectBrand(input)).toBe(brand);
  });
});

describe('lengths', () => {
  it.each([
    ['visa', 19, 3],
    ['mastercard', 16, 3],
    ['amex', 15, 4],
    ['elo', 16, 3],
    ['hipercard', 19, 3],
    [null, 19, 3],
  ] as const)('%s: max %i digits, CVV %i', (brand, max, cvv) => {
    expect(maxCardLength(brand)).toBe(max);
    expect(securityCodeLength(brand)).toBe(cvv);
  });
});

describe('brandName', () => {
  it('names each brand as its badge shows it', () => {
    expect(CARD_BRANDS.map(brandName)).toEqual([
      'Visa',
      'Mastercard',
      'American Express',
      'Elo',
      'Hipercard',
    ]);
  });
});
