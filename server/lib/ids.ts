import { randomBytes, randomUUID } from 'node:crypto';

/** A random lowercase hex string of `bytes` bytes. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A random string of decimal digits. */
export function randomDigits(length: number): string {
  const buf = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += String(buf[i]! % 10);
  return out;
}

export function uuid(): string {
  return randomUUID();
}

/** A prefixed opaque id, e.g. `cs_3f2a…`. */
export function prefixedId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
