import { encryptCard, importCardKey } from '../crypto/encrypt-card';
import type { ApiResult, CheckoutApi } from './api';
import { cardSecrets, type FormValues } from './form-model';

/** The gateway's card key of one frame, read once through the BFF, and the card sealed with it. */
export class CardKey {
  #key: Promise<CryptoKey> | null = null;

  /** The key (`read`: a read of it already under way); a failed read is tried again next time. */
  get(api: CheckoutApi, read?: Promise<ApiResult<{ key: string }>>): Promise<CryptoKey> {
    this.#key ??= (read ?? api.publicKey()).then((res) => {
      if (!res.ok || typeof res.data?.key !== 'string') throw new Error('no key');
      return importCardKey(res.data.key);
    });
    this.#key.catch(() => {
      this.#key = null;
    });
    return this.#key;
  }

  /** A fresh ciphertext of the card, timestamped by the BFF's clock (the gateway checks it). */
  async encrypt(api: CheckoutApi, values: FormValues): Promise<string> {
    return encryptCard(await this.get(api), cardSecrets(values), { now: () => api.now() });
  }
}
