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

/** The 74 bits after the timestamp (`rand_a` and `rand_b`), and the millisecond they belong to. */
let lastMs = -1n;
let lastRand = 0n;
const RAND_BITS = 74n;
const RAND_LIMIT = 1n << RAND_BITS;

function freshRand(): bigint {
  // 73 random bits: the top one is left clear, so a run of increments has room to grow.
  return BigInt(`0x${randomIdBytes(10).toString('hex')}`) & ((1n << 73n) - 1n);
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 bits that are random for
 * the first id of a millisecond and grow by a random step for each further id of the same
 * millisecond (RFC 9562 §6.2, method 2: monotonic random). Ids made later sort later, even
 * thousands within one instant (the sandbox's business clock stands still while its billing
 * engine opens a whole cycle), so a table keyed by them inserts at the end of its indexes
 * instead of all over the current instant's range.
 */
export function uuidV7(at: Date = new Date()): string {
  const ms = BigInt(Math.max(0, Math.floor(at.getTime())));
  let rand = ms === lastMs ? lastRand + 1n + BigInt(randomIdBytes(2).readUInt16BE(0)) : -1n;
  if (rand < 0n || rand >= RAND_LIMIT) rand = freshRand();
  lastMs = ms;
  lastRand = rand;
  const b = Buffer.alloc(16);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  const randA = Number(rand >> 62n); // 12 bits
  const randB = rand & ((1n << 62n) - 1n);
  b[6] = 0x70 | (randA >> 8);
  b[7] = randA & 0xff;
  b[8] = 0x80 | Number(randB >> 56n);
  for (let i = 9; i < 16; i++) b[i] = Number((randB >> BigInt(8 * (15 - i))) & 0xffn);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A prefixed opaque id, e.g. `pa_3f2a…` (random, from the pooled draw: an id, not a secret). */
export function prefixedId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomIdBytes(bytes).toString('base64url')}`;
}
