import { describe, expect, it } from 'vitest';
import { readDemoEnv } from '../../../demo/env';

describe('readDemoEnv', () => {
  it('reads DEMO_PORT and BFF_PORT as digits only; an empty value is the default', () => {
    const env = readDemoEnv({ DEMO_PORT: '', BFF_PORT: ' ' });
    expect(env.DEMO_PORT).toBe(3000);
    expect(env.BFF_PUBLIC_URL).toBe('http://localhost:3001');
    for (const [name, value] of [
      ['DEMO_PORT', '1e3'],
      ['BFF_PORT', '0x1F90'],
    ] as const) {
      expect(() => readDemoEnv({ [name]: value }), name).toThrow(
        new RegExp(`${name}: must be a whole number`),
      );
    }
  });
});
