/** What an installment plan costs, in the shopper's words. */
import type { InstallmentOption } from '../card/money';
import { formatBRL } from '../card/money';
import type { Messages } from '../i18n/messages';
import { fmt } from '../i18n/messages';

/**
 * `6x de R$ 46,48 sem juros`: the plans are merchant-financed (`lojista`), so the shopper pays
 * the total. When the installments shown do not add up to it (the first one carries the
 * remainder cents), the total is said too: `3x de R$ 16,63 sem juros (total R$ 49,90)`.
 */
export function installmentText(m: Messages, option: InstallmentOption, total: number): string {
  if (option.count === 1) return fmt(m.installmentOne, formatBRL(total));
  const text = fmt(m.installmentFree, option.count, formatBRL(option.rest));
  return option.rest * option.count === total
    ? text
    : text + fmt(m.installmentTotal, formatBRL(total));
}
