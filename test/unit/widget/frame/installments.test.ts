import { describe, expect, it } from 'vitest';
import { installmentOptions } from '../../../../widget/card/money';
import { installmentText } from '../../../../widget/frame/installments';
import { messagesFor } from '../../../../widget/i18n';

const nbsp = '\u00a0';
const texts = (locale: 'pt-BR' | 'en', total: number, max: number): string[] =>
  installmentOptions(total, max).map((o) =>
    installmentText(messagesFor(locale), o, total).replaceAll(nbsp, ' '),
  );

describe('installmentText', () => {
  it('says what each installment costs, interest-free', () => {
    expect(texts('pt-BR', 27888, 6)).toEqual([
      '1x de R$ 278,88 à vista',
      '2x de R$ 139,44 sem juros',
      '3x de R$ 92,96 sem juros',
      '4x de R$ 69,72 sem juros',
      '5x de R$ 55,77 sem juros (total R$ 278,88)',
      '6x de R$ 46,48 sem juros',
    ]);
  });

  it('adds the total where the installments shown do not add up to it', () => {
    expect(texts('pt-BR', 4990, 3)).toEqual([
      '1x de R$ 49,90 à vista',
      '2x de R$ 24,95 sem juros',
      '3x de R$ 16,63 sem juros (total R$ 49,90)',
    ]);
  });

  it('speaks English', () => {
    expect(texts('en', 4990, 2)).toEqual(['1 payment of R$ 49,90', '2x R$ 24,95 interest-free']);
  });
});
