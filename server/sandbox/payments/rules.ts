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
 * `configSplit` rules beyond the field shapes. Decided (the spec leaves it open): every entry
 * names its beneficiary, percent and type; one entry per beneficiary and type; the percents
 * of all entries add up to at most 100 (whatever is left stays with the merchant).
 */
export function checkSplits(splits: readonly Split[] | undefined): ErrorItem[] {
  if (!splits) return [];
  const errors: ErrorItem[] = [];
  const seen = new Set<string>();
  let total = 0;
  splits.forEach((s, i) => {
    const at = `configSplit.${i}`;
    if (s.documentNumberBeneficiary === undefined) {
      errors.push(item(`${at}.documentNumberBeneficiary`, 'is required in a split'));
    }
    if (s.percent === undefined) errors.push(item(`${at}.percent`, 'is required in a split'));
    if (s.type === undefined) errors.push(item(`${at}.type`, 'is required in a split'));
    const key = `${s.documentNumberBeneficiary}/${s.type}`;
    if (s.documentNumberBeneficiary !== undefined && s.type !== undefined && seen.has(key)) {
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
