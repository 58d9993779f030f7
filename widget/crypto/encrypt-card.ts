/**
 * Card encryption (DESIGN §3): RSA-OAEP with SHA-256 over a compact JSON plaintext, with the
 * gateway's PEM SPKI public key. WebCrypto only, so it runs in the frame and in Node 20.
 * A fresh timestamp and nonce every call: the gateway refuses a replayed ciphertext.
 */

export interface CardSecrets {
  /** Digits only. */
  number: string;
  securityCode: string;
  /** Two digits. */
  expirationMonth: string;
  /** Two digits. */
  expirationYear: string;
}

/** Plaintext limit: 2048-bit RSA-OAEP with SHA-256 holds at most 190 bytes. */
export const MAX_PLAINTEXT_BYTES = 190;

export interface EncryptDeps {
  subtle?: SubtleCrypto;
  now?: () => number;
  randomBytes?: (n: number) => Uint8Array;
}

function pemToDer(pem: string): ArrayBuffer {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new Error('not PEM');
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0)).buffer;
}

function toBase64(bytes: Uint8Array): string {
  // A ciphertext is 256 bytes: one call's arguments.
  return btoa(String.fromCharCode(...bytes));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Imports the PEM SPKI key for RSA-OAEP SHA-256 encryption (not extractable). */
export async function importCardKey(
  pem: string,
  subtle: SubtleCrypto = crypto.subtle,
): Promise<CryptoKey> {
  return subtle.importKey('spki', pemToDer(pem), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, [
    'encrypt',
  ]);
}

/** The exact plaintext: compact JSON, fields in this order. */
export function cardPlaintext(card: CardSecrets, timestamp: number, nonce: string): string {
  return JSON.stringify({
    number: card.number,
    securityCode: card.securityCode,
    expirationMonth: card.expirationMonth,
    expirationYear: card.expirationYear,
    timestamp,
    nonce,
  });
}

/** Encrypts the card for one gateway call; resolves the base64 ciphertext. */
export async function encryptCard(
  key: CryptoKey,
  card: CardSecrets,
  deps: EncryptDeps = {},
): Promise<string> {
  const subtle = deps.subtle ?? crypto.subtle;
  const random = deps.randomBytes ?? ((n: number) => crypto.getRandomValues(new Uint8Array(n)));
  const plaintext = new TextEncoder().encode(
    cardPlaintext(card, (deps.now ?? Date.now)(), hex(random(8))),
  );
  if (plaintext.byteLength > MAX_PLAINTEXT_BYTES) throw new RangeError('too long');
  const cipher = await subtle.encrypt({ name: 'RSA-OAEP' }, key, plaintext);
  return toBase64(new Uint8Array(cipher));
}
