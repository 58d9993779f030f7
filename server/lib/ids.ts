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

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made later
 * sort later, so a table keyed by them inserts at the end of its index.
 */
export function uuidV7(at: Date = new Date()): string {
  const b = Buffer.from(randomIdBytes(16));
  const ms = BigInt(Math.max(0, Math.floor(at.getTime())));
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A prefixed opaque id, e.g. `cs_3f2a…`. */
export function prefixedId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
