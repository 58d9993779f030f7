import { securityCodeLength } from './brand';
import type { CardBrand } from './brand';

export type SecurityCodeError = 'required' | 'invalid';

export function validateSecurityCode(
  input: string,
  brand: CardBrand | null,
): SecurityCodeError | null {
  if (input === '') return 'required';
  return new RegExp(`^\\d{${securityCodeLength(brand)}}$`).test(input) ? null : 'invalid';
}
