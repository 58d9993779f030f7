import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeKek } from '../../../../server/sandbox/keys/kek';
import { unwrapPrivateKey, wrapPrivateKey } from '../../../../server/sandbox/keys/card-keys';
import { readSandboxEnv } from '../../../../server/sandbox/env';

describe('key-encryption key', () => {
  it('decodes only the base64 of 32 bytes', () => {
    const kek = randomBytes(32);
    expect(decodeKek(kek.toString('base64')).equals(kek)).toBe(true);
    expect(() => decodeKek(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => readSandboxEnv({ SANDBOX_KEK: 'c2hvcnQ=' })).toThrow(/SANDBOX_KEK/);
    expect(readSandboxEnv({ SANDBOX_KEK: kek.toString('base64') }).SANDBOX_KEK).toBeDefined();
  });

  it('wraps with AES-256-GCM bound to the client: wrong KEK or client fails', () => {
    const kek = randomBytes(32);
    const secret = randomBytes(100);
    const wrapped = wrapPrivateKey(kek, 'sandbox', secret);
    expect(wrapped).not.toContain(secret.toString('base64'));
    expect(unwrapPrivateKey(kek, 'sandbox', wrapped).equals(secret)).toBe(true);
    expect(() => unwrapPrivateKey(randomBytes(32), 'sandbox', wrapped)).toThrow();
    expect(() => unwrapPrivateKey(kek, 'other', wrapped)).toThrow();
  });
});
