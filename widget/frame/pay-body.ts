/** The body of `POST /checkout/api/pay`, made of the form's values and the card's ciphertext. */
import type { ChallengeWindowSize, PayBody } from '../../contract/checkout';
import { detectBrand } from '../card/brand';
import { parseDocument } from '../card/document';
import { digitsOnly } from '../card/number';
import { collectDeviceInfo } from '../device/device-info';
import type { FormValues } from './form-model';

/** One anti-fraud fingerprint per page load. */
const FINGERPRINT = crypto.randomUUID();

export function payBodyOf(
  values: FormValues,
  encryptedCard: string,
  challengeWindowSize: ChallengeWindowSize,
): PayBody {
  const brand = detectBrand(values.cardNumber);
  const document = parseDocument(values.document);
  return {
    method: values.method,
    installments: values.method === 'credit' ? values.installments : 1,
    encryptedCard,
    cardholderName: values.cardholderName.trim(),
    // For the receipt; the full number travels only encrypted.
    last4: digitsOnly(values.cardNumber).slice(-4),
    deviceInfo: collectDeviceInfo(),
    fingerprint: FINGERPRINT,
    challengeWindowSize,
    ...(brand ? { brand } : {}),
    ...(document ? { document } : {}),
  };
}
