import type { DeviceInfo, Split } from '../../gateway/schemas/payments';
import type { ErrorItem } from '../../lib/http';

function item(tag: string, description: string): ErrorItem {
  return { tag, description: `${tag}: ${description}` };
}

/**
 * productType and installments must agree (the spec: lojista for installment sales, avista
 * for one installment). Credit: avista ⇔ 1, lojista ⇔ 2 or more. Debit: debito or avista with
 * exactly 1, lojista with 2 or more (the spec states both debito and the avista/lojista note,
 * so all three are accepted under the same rule).
 */
export function checkProductType(
  transactionType: 'credit' | 'debit',
  productType: string,
  installments: number,
): ErrorItem | null {
  if (productType === 'lojista') {
    return installments >= 2
      ? null
      : item('payment.installments', 'lojista (installment sale) needs 2 or more installments');
  }
  if (productType === 'avista' || (transactionType === 'debit' && productType === 'debito')) {
    return installments === 1
      ? null
      : item('payment.installments', `${productType} takes exactly 1 installment; use lojista`);
  }
  return item('payment.productType', `not allowed for ${transactionType}`);
}

/**
 * A CPF (11 digits) or CNPJ (14) whose two mod-11 check digits are right; a run of one digit
 * (00000000000…) is refused. CPF weights count down from n + 1, CNPJ's cycle 2–9 from the right.
 */
export function validTaxId(d: string): boolean {
  if (!/^(\d{11}|\d{14})$/.test(d) || /^(\d)\1*$/.test(d)) return false;
  const cpf = d.length === 11;
  for (const n of [d.length - 2, d.length - 1]) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Number(d[i]) * (cpf ? n + 1 - i : ((n - 1 - i) % 8) + 2);
    const rest = sum % 11;
    if (Number(d[n]) !== (rest < 2 ? 0 : 11 - rest)) return false;
  }
  return true;
}

/**
 * `configSplit` rules beyond the field shapes. The spec makes every sub-field optional, so
 * none is required; those present are checked: the beneficiary a CPF/CNPJ with right check
 * digits (the shape already asks 11 or 14 digits), percent 0–100 with two decimals and type
 * bruto/liquido (shape). One entry per beneficiary and type; the percents of all entries add
 * up to at most 100 (whatever is left stays with the merchant).
 */
export function checkSplits(splits: readonly Split[] | undefined): ErrorItem[] {
  if (!splits) return [];
  const errors: ErrorItem[] = [];
  const seen = new Set<string>();
  let total = 0;
  splits.forEach((s, i) => {
    const at = `configSplit.${i}`;
    const doc = s.documentNumberBeneficiary;
    if (doc !== undefined && !validTaxId(doc)) {
      errors.push(
        item(`${at}.documentNumberBeneficiary`, 'is not a valid CPF or CNPJ (check digits)'),
      );
    }
    const key = `${doc}/${s.type}`;
    if (doc !== undefined && s.type !== undefined && seen.has(key)) {
      errors.push(item(`${at}.documentNumberBeneficiary`, 'appears twice with the same type'));
    }
    seen.add(key);
    total += Math.round((s.percent ?? 0) * 100);
  });
  if (total > 10_000) {
    errors.push(item('configSplit', `percents add up to ${total / 100}, more than 100`));
  }
  return errors;
}

/**
 * The `deviceInfo` fields the spec marks "no (needed for 3DS)": `POST /v1/payments/3ds` is
 * always 3DS, so each must be there (the issuer's risk analysis reads them). `ipAddress`
 * appears in the body shape only and stays optional.
 */
export const DEVICE_INFO_NEEDED_FOR_3DS = [
  'httpAcceptBrowserValue',
  'httpAcceptContent',
  'httpBrowserLanguage',
  'httpBrowserJavaEnabled',
  'httpBrowserJavaScriptEnabled',
  'httpBrowserColorDepth',
  'httpBrowserScreenHeight',
  'httpBrowserScreenWidth',
  'httpBrowserTimeDifference',
  'userAgentBrowserValue',
] as const satisfies readonly (keyof DeviceInfo)[];

/** One error per needed `deviceInfo` field left out (or empty): never authenticated without. */
export function checkDeviceInfoFor3ds(deviceInfo: Partial<DeviceInfo> | undefined): ErrorItem[] {
  const missing = DEVICE_INFO_NEEDED_FOR_3DS.filter((f) => {
    const v = deviceInfo?.[f];
    return v === undefined || v === '';
  });
  if (missing.length === 0) return [];
  if (!deviceInfo) {
    return [item('deviceInfo', `is needed for 3DS (missing ${missing.join(', ')})`)];
  }
  return missing.map((f) => item(`deviceInfo.${f}`, 'is needed for 3DS'));
}
