import { generateCNPJ, generateCPF } from '@brazilian-utils/brazilian-utils';
import { describe, expect, it } from 'vitest';
import {
  formatDocument,
  isValidCnpj,
  isValidCpf,
  parseDocument,
  validateDocument,
} from '../../../../widget/card/document';

describe('CPF', () => {
  it.each([
    ['52998224725', true],
    ['529.982.247-25', true],
    ['52998224724', false],
    ['52998224715', false],
    ['11111111111', false],
    ['00000000000', false],
    ['5299822472', false],
    ['', false],
  ])('%s → %s', (n, ok) => expect(isValidCpf(n)).toBe(ok));

  it('agrees with @brazilian-utils on generated numbers', () => {
    for (let i = 0; i < 200; i++) {
      const cpf = generateCPF();
      expect(isValidCpf(cpf)).toBe(true);
      const wrong = cpf.slice(0, 10) + String((Number(cpf[10]) + 1) % 10);
      expect(isValidCpf(wrong)).toBe(false);
    }
  });
});

describe('CNPJ', () => {
  it.each([
    ['11222333000181', true],
    ['11.222.333/0001-81', true],
    ['11222333000182', false],
    ['11222333000171', false],
    ['00000000000000', false],
    ['1122233300018', false],
  ])('%s → %s', (n, ok) => expect(isValidCnpj(n)).toBe(ok));

  it('agrees with @brazilian-utils on generated numeric numbers', () => {
    let checked = 0;
    for (let i = 0; i < 400 && checked < 100; i++) {
      const cnpj = generateCNPJ();
      if (!/^\d{14}$/.test(cnpj)) continue;
      checked++;
      expect(isValidCnpj(cnpj)).toBe(true);
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('formatDocument', () => {
  it.each([
    ['', ''],
    ['529', '529'],
    ['5299', '529.9'],
    ['52998224725', '529.982.247-25'],
    ['112223330001', '11.222.333/0001'],
    ['11222333000181', '11.222.333/0001-81'],
    ['11.222.333/0001-8199', '11.222.333/0001-81'],
  ])('%s → %s', (input, out) => expect(formatDocument(input)).toBe(out));
});

describe('parseDocument / validateDocument', () => {
  it.each([
    ['529.982.247-25', { type: 'cpf', number: '52998224725' }],
    ['11.222.333/0001-81', { type: 'cnpj', number: '11222333000181' }],
    ['529.982.247-24', null],
    ['123', null],
  ])('%s', (input, out) => expect(parseDocument(input)).toEqual(out));

  it('an empty document is valid (optional); a bad one is not', () => {
    expect(validateDocument('')).toBeNull();
    expect(validateDocument('...-')).toBeNull();
    expect(validateDocument('529.982.247-25')).toBeNull();
    expect(validateDocument('529.982.247-2')).toBe('invalid');
  });
});
