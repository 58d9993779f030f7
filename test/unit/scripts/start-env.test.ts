import { describe, expect, it } from 'vitest';
import { stackSettingsFromEnv } from '../../../scripts/start';

describe('npm start settings', () => {
  it('is quiet by default: warnings and errors only, local defaults', () => {
    const s = stackSettingsFromEnv({});
    expect(s.logLevel).toBe('warn');
    expect(s.ports).toEqual({ sandbox: 4010, bff: 3001, demo: 3000 });
    expect(s.merchantSecret).toBe('sk_test_local');
    expect(s.extraAllowedOrigins).toEqual([]);
    expect(s.webhook).toEqual({ user: 'gateway', password: 'gateway' });
  });

  it("honours the BFF's documented environment", () => {
    const s = stackSettingsFromEnv({
      LOG_LEVEL: 'debug',
      BFF_ALLOWED_ORIGINS: 'https://shop.example, http://localhost:8080',
      BFF_MERCHANT_SECRET: 'sk_test_merchant_1234',
      BFF_WEBHOOK_USER: 'hooks',
      BFF_WEBHOOK_PASSWORD: 'long-hook-password',
      BFF_STOP_GRACE_MS: '2500',
      DEMO_PORT: '3100',
    });
    expect(s.logLevel).toBe('debug');
    expect(s.extraAllowedOrigins).toEqual(['https://shop.example', 'http://localhost:8080']);
    expect(s.merchantSecret).toBe('sk_test_merchant_1234');
    expect(s.webhook).toEqual({ user: 'hooks', password: 'long-hook-password' });
    expect(s.ports.demo).toBe(3100);
    expect(s.stopGraceMs).toBe(2500);
  });

  it('refuses a bad value with its name, as the BFF does', () => {
    expect(() => stackSettingsFromEnv({ BFF_ALLOWED_ORIGINS: 'shop.example/path' })).toThrow(
      /BFF_ALLOWED_ORIGINS/,
    );
    expect(() => stackSettingsFromEnv({ BFF_MERCHANT_SECRET: 'short' })).toThrow(
      /BFF_MERCHANT_SECRET/,
    );
  });

  it("reads ports by the env readers' rule: digits only, an empty value is the default", () => {
    expect(stackSettingsFromEnv({ BFF_PORT: '', SANDBOX_PORT: ' ', DEMO_PORT: '' }).ports).toEqual({
      sandbox: 4010,
      bff: 3001,
      demo: 3000,
    });
    for (const [name, value, rule] of [
      ['SANDBOX_PORT', '0x1F90', 'must be a whole number'],
      ['DEMO_PORT', '1e3', 'must be a whole number'],
      ['DEMO_PORT', '70000', 'must be at most 65535'],
      ['SANDBOX_PORT', '0', 'must be at least 1'],
    ] as const) {
      expect(() => stackSettingsFromEnv({ [name]: value }), `${name}=${value}`).toThrow(
        `${name}: ${rule}`,
      );
    }
  });
});

describe('npm start rebuilds the widget', () => {
  it('when a widget source or the contract it imports is newer than the bundles', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, utimesSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { widgetBuildIsStale } = await import('../../../scripts/start');
    const root = mkdtempSync(join(tmpdir(), 'start-build-'));
    try {
      const now = Date.now() / 1000;
      const at = (path: string, seconds: number) => {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), 'x');
        utimesSync(join(root, path), seconds, seconds);
      };
      for (const out of [
        'widget/card-checkout.js',
        'widget/manifest.json',
        'frame/card-form.js',
        'frame/manifest.json',
      ]) {
        at(`dist/${out}`, now + 100);
      }
      at('widget/host/card-checkout.ts', now - 100);
      at('contract/checkout.ts', now - 100);
      expect(widgetBuildIsStale(root)).toBe(false);
      at('contract/checkout.ts', now + 200);
      expect(widgetBuildIsStale(root)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
