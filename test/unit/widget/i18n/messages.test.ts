import { describe, expect, it } from 'vitest';
import { FAILURE_CODES } from '../../../../server/bff/checkout-api';
import { messagesFor } from '../../../../widget/i18n';

describe.each(['pt-BR', 'en'] as const)('messages %s', (locale) => {
  const m = messagesFor(locale);

  it('has a shopper message for every failure code, none leaking codes or fraud', () => {
    for (const code of FAILURE_CODES) {
      const text = m.failures[code];
      expect(text.length).toBeGreaterThan(10);
      expect(text).not.toMatch(/\b(05|51|54|N7|46)\b|fraud|fraude|risk|risco|_/i);
    }
  });

  it('formats installments and attempts', () => {
    expect(m.installmentOption(1, 'R$ 100,00', 'R$ 100,00')).toContain('R$ 100,00');
    expect(m.installmentOption(3, 'R$ 33,34', 'R$ 33,33')).toContain('R$ 33,34');
    expect(m.installmentOption(2, 'R$ 50,00', 'R$ 50,00')).toMatch(/^2/);
    expect(m.attemptsLeft(1)).toMatch(/1/);
    expect(m.attemptsLeft(2)).toMatch(/2/);
  });
});

describe('subscription texts', () => {
  it('states the amount and the period in the consent line', () => {
    const pt = messagesFor('pt-BR');
    expect(pt.subscribe).toBe('Assinar');
    expect(pt.consent('R$ 39,90', pt.every(30))).toBe(
      'Autorizo a cobrança recorrente de R$ 39,90 a cada 30 dias até eu cancelar.',
    );
    const en = messagesFor('en');
    expect(en.consent('R$ 39,90', en.every(365))).toBe(
      'I authorize recurring charges of R$ 39,90 every 365 days until I cancel.',
    );
  });
});

describe('messagesFor', () => {
  it('defaults to Portuguese', () => {
    expect(messagesFor('pt-BR').cardNumber).toBe('Número do cartão');
    expect(messagesFor('en').cardNumber).toBe('Card number');
  });
});
