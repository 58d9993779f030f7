import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** SHA-256 hex digest; tokens and secrets are stored only as this. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/**
 * Seals a short text with AES-256-GCM under a key derived from `secret` (a configured secret,
 * never stored): what a table must keep but only the running service may read back.
 */
export function sealText(secret: string, purpose: string, plaintext: string): string {
  const key = createHash('sha256').update(`${purpose}\n${secret}`, 'utf8').digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens `sealText`'s output; null when it was sealed under another secret or altered. */
export function openSealed(secret: string, purpose: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const key = createHash('sha256').update(`${purpose}\n${secret}`, 'utf8').digest();
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
