import { randomBytes, randomUUID } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * `n` random bytes for identifiers (not keys or secrets), cut from a pooled 4 KiB draw:
 * one call into OpenSSL per few hundred ids instead of one each, as `randomUUID` does.
 * The bytes are handed out once; callers must not keep the view beyond reading it.
 */
export function randomIdBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  if (poolOffset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

/** A random lowercase hex string of `bytes` bytes. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A random string of decimal digits. */
export function randomDigits(length: number): string {
  const buf = randomIdBytes(length);
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
