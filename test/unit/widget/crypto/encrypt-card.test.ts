import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cardPlaintext,
  encryptCard,
  importCardKey,
  MAX_PLAINTEXT_BYTES,
} from '../../../../widget/crypto/encrypt-card';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

function decrypt(b64: string): string {
  return privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(b64, 'base64'),
  ).toString('utf8');
}

const card = {
  number: '4000000000002701',
  securityCode: '123',
  expirationMonth: '12',
  expirationYear: '28',
};

describe('encryptCard', () => {
  it('encrypts the exact DESIGN §3 plaintext with RSA-OAEP SHA-256', async () => {
    const key = await importCardKey(pem);
    const b64 = await encryptCard(key, card, {
      now: () => 1_764_000_000_000,
      randomBytes: (n) => new Uint8Array(n).map((_, i) => i * 17),
    });
    expect(b64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(b64).toHaveLength(344);
    expect(decrypt(b64)).toBe(
      '{"number":"4000000000002701","securityCode":"123","expirationMonth":"12",' +
        '"expirationYear":"28","timestamp":1764000000000,"nonce":"0011223344556677"}',
    );
  });

  it('uses a fresh 16-hex nonce and the current time by default', async () => {
    const key = await importCardKey(pem);
    const before = Date.now();
    const a = JSON.parse(decrypt(await encryptCard(key, card))) as Record<string, unknown>;
    const b = JSON.parse(decrypt(await encryptCard(key, card))) as Record<string, unknown>;
    expect(Object.keys(a)).toEqual([
      'number',
      'securityCode',
      'expirationMonth',
      'expirationYear',
      'timestamp',
      'nonce',
    ]);
    expect(a.nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.timestamp).toBeGreaterThanOrEqual(before);
  });

  it('the longest real card (19 digits, 4-digit code) stays within 190 bytes', () => {
    const text = cardPlaintext(
      { number: '4'.repeat(19), securityCode: '1234', expirationMonth: '12', expirationYear: '99' },
      9_999_999_999_999,
      'f'.repeat(16),
    );
    expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(MAX_PLAINTEXT_BYTES);
  });

  it('refuses a plaintext over 190 bytes instead of failing inside RSA', async () => {
    const key = await importCardKey(pem);
    await expect(encryptCard(key, { ...card, number: '4'.repeat(150) })).rejects.toThrow(
      RangeError,
    );
  });

  it('rejects something that is not a PEM key', async () => {
    await expect(
      importCardKey('-----BEGIN PUBLIC KEY-----\nnot*base64\n-----END PUBLIC KEY-----'),
    ).rejects.toThrow();
  });
});
