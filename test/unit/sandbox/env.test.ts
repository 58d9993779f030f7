import { describe, expect, it } from 'vitest';
import { readSandboxEnv } from '../../../server/sandbox/env';

describe('readSandboxEnv', () => {
  it('reads SANDBOX_PORT as digits only; an empty value is the default', () => {
    expect(readSandboxEnv({ SANDBOX_PORT: '' }).SANDBOX_PORT).toBe(4010);
    expect(readSandboxEnv({ SANDBOX_PORT: '8080' }).SANDBOX_PORT).toBe(8080);
    expect(readSandboxEnv({ SANDBOX_PORT: '' }).SANDBOX_PUBLIC_URL).toBe('http://localhost:4010');
    for (const value of ['0x1F90', '1e3', '80.5']) {
      expect(() => readSandboxEnv({ SANDBOX_PORT: value }), value).toThrow(
        /SANDBOX_PORT: must be a whole number/,
      );
    }
  });
});
