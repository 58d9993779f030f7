import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodePareq,
  encodePareq,
  signPares,
  verifyPares,
} from '../../../../server/sandbox/three-ds/pares';

describe('PaRes tokens', () => {
  const secret = randomBytes(32);
  it('round-trips the authentication id and result', () => {
    const t = signPares(secret, 'auth-1', 'Y');
    expect(verifyPares(secret, t)).toEqual({ authId: 'auth-1', result: 'Y' });
  });
  it('refuses a tampered payload, another secret and garbage', () => {
    const t = signPares(secret, 'auth-1', 'N');
    const [, mac] = t.split('.');
    const forged = `${Buffer.from(JSON.stringify({ a: 'auth-1', r: 'Y' })).toString('base64url')}.${mac}`;
    expect(verifyPares(secret, forged)).toBeNull();
    expect(verifyPares(randomBytes(32), t)).toBeNull();
    expect(verifyPares(secret, 'nope')).toBeNull();
    expect(verifyPares(secret, `${t}.x`)).toBeNull();
  });
});

describe('PaReq', () => {
  it('carries only a reference', () => {
    const ref = randomBytes(16).toString('hex');
    expect(decodePareq(encodePareq(ref))).toBe(ref);
    expect(decodePareq('aGVsbG8=')).toBeNull();
    expect(decodePareq('!!')).toBeNull();
  });
});
