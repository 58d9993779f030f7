import { describe, expect, it } from 'vitest';
import { FAILURE_CODES } from '../../../../server/bff/checkout-api';
import { fmt, messagesFor, plural } from '../../../../widget/i18n';
import type { Messages } from '../../../../widget/i18n';

/** Every string of a message table, with its path. */
function strings(v: unknown, path = ''): [string, string][] {
  if (typeof v === 'string') return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (typeof v === 'object' && v !== null) {
    return Object.entries(v).flatMap(([k, x]) => strings(x, path ? `${path}.${k}` : k));
  }
  return [];
}

describe.each(['pt-BR', 'en'] as const)('messages %s', (locale) => {
  const m = messagesFor(locale);

  it('has a shopper message for every failure code, none leaking codes or fraud', () => {
    for (const code of FAILURE_CODES) {
      const text = m.failures[code];
      expect(text.length).toBeGreaterThan(10);
      expect(text).not.toMatch(/\b(05|51|54|N7|46)\b|fraud|fraude|risk|risco|_/i);
    }
  });

  it('is plain data that survives JSON (the BFF writes it into the frame page)', () => {
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
  });

  it('has the same keys and placeholders as pt-BR', () => {
    const pt = new Map(strings(messagesFor('pt-BR')));
    const here = strings(m);
    expect(here.map(([k]) => k).sort()).toEqual([...pt.keys()].sort());
    const holes = (s: string) => (s.match(/\{\d\}/g) ?? []).sort();
    for (const [k, s] of here) expect(holes(s), k).toEqual(holes(pt.get(k)!));
  });

  it('formats attempts and field counts', () => {
    expect(plural(m.attemptsLeft, 1)).toMatch(/1/);
    expect(plural(m.attemptsLeft, 2)).toMatch(/2/);
    expect(plural(m.errors.fixFields, 3)).toMatch(/3/);
  });
});

describe('texts', () => {
  const pt: Messages = messagesFor('pt-BR');
  const en: Messages = messagesFor('en');

  it('states the amount and the period in the consent line', () => {
    expect(pt.subscribe).toBe('Assinar');
    expect(fmt(pt.consent, 'R$ 39,90', fmt(pt.every, 30))).toBe(
      'Autorizo a cobrança recorrente de R$ 39,90 a cada 30 dias até eu cancelar.',
    );
    expect(fmt(en.consent, 'R$ 39,90', fmt(en.every, 365))).toBe(
      'I authorize recurring charges of R$ 39,90 every 365 days until I cancel.',
    );
  });

  it('an unknown outcome is being confirmed, with no retry in it', () => {
    expect(pt.confirming).toBe('Estamos confirmando seu pagamento…');
    expect(en.confirming).toBe('We are confirming your payment…');
  });

  it('fmt fills numbered holes and leaves no hole behind', () => {
    expect(fmt('{1} de {0}', 'a', 'b')).toBe('b de a');
    expect(fmt('{0}', 7)).toBe('7');
  });

  it('defaults to Portuguese', () => {
    expect(messagesFor('pt-BR').cardNumber).toBe('Número do cartão');
    expect(messagesFor('en').cardNumber).toBe('Card number');
  });
});
