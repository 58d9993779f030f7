import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { BffContext, BffEnv } from '../../../server/bff/context';
import { readBffEnv } from '../../../server/bff/env';
import { requireMerchant } from '../../../server/bff/routes/merchant';

describe('readBffEnv', () => {
  it('serves the local demo with no variables set (DESIGN §4 defaults)', () => {
    const env = readBffEnv({});
    expect(env.port).toBe(3001);
    expect(env.databaseUrl).toBe('./data/bff.sqlite');
    expect(env.gateway.gatewayBaseUrl).toBe('http://localhost:4010');
    expect(env.gateway.credentials).toEqual({
      gateway: { userName: 'sandbox', password: 'sandbox' },
    });
    expect(env.config).toMatchObject({
      publicUrl: 'http://localhost:3001',
      merchantSecret: 'sk_test_local',
      allowedOrigins: ['http://localhost:3000'],
      webhook: { user: 'gateway', password: 'gateway' },
      maxAttempts: 3,
    });
  });

  it('looks timed-out payments up every minute by default; 0 turns it off; a negative is refused', () => {
    expect(readBffEnv({}).resolver).toEqual({
      intervalMs: 60_000,
      accountNumber: '1001',
      strandedAfterMs: 2 * 30_000 + 60_000,
    });
    expect(
      readBffEnv({
        BFF_RESOLVE_INTERVAL_MS: '0',
        BFF_WEBHOOK_ACCOUNT: '2002',
        GATEWAY_TIMEOUT_MS: '5000',
        BFF_STRANDED_MARGIN_MS: '1000',
      }).resolver,
    ).toEqual({ intervalMs: 0, accountNumber: '2002', strandedAfterMs: 11_000 });
    expect(() => readBffEnv({ BFF_RESOLVE_INTERVAL_MS: '-5' })).toThrow(/BFF_RESOLVE_INTERVAL_MS/);
  });

  it('reads lists, URLs and PostgreSQL', () => {
    const env = readBffEnv({
      NODE_ENV: 'development',
      BFF_ALLOWED_ORIGINS: 'https://a.example, https://b.example:8443',
      BFF_PUBLIC_URL: 'https://pay.example/',
      DATABASE_URL: 'postgres://u:p@db/bff',
      INTEGRATION_USERNAME: 'int',
      INTEGRATION_PASSWORD: 'pw',
    });
    expect(env.config.allowedOrigins).toEqual(['https://a.example', 'https://b.example:8443']);
    expect(env.config.publicUrl).toBe('https://pay.example');
    expect(env.databaseUrl).toBe('postgres://u:p@db/bff');
    expect(env.gateway.credentials.integration).toEqual({ userName: 'int', password: 'pw' });
  });

  const PRODUCTION = {
    NODE_ENV: 'production',
    BFF_MERCHANT_SECRET: 'sk_live_0123456789',
    BFF_WEBHOOK_USER: 'acquirer',
    BFF_WEBHOOK_PASSWORD: 'a-long-random-password',
    BFF_PUBLIC_URL: 'https://pay.example',
    GATEWAY_USERNAME: 'merchant-42',
    GATEWAY_PASSWORD: 'gw-password',
    GATEWAY_BASE_URL: 'https://gateway.example',
    INTEGRATION_BASE_URL: 'https://integration.example',
  };

  it('requires BFF_MERCHANT_SECRET in production, naming it', () => {
    expect(() => readBffEnv({ ...PRODUCTION, BFF_MERCHANT_SECRET: undefined })).toThrow(
      /BFF_MERCHANT_SECRET: is required/,
    );
    const env = readBffEnv(PRODUCTION);
    expect(env.config.merchantSecret).toBe('sk_live_0123456789');
    expect(env.warnings).toEqual([]);
  });

  it.each([
    [{ BFF_MERCHANT_SECRET: 'sk_test_local' }, 'BFF_MERCHANT_SECRET: must not be the demo secret'],
    [{ BFF_WEBHOOK_USER: undefined, BFF_WEBHOOK_PASSWORD: undefined }, 'BFF_WEBHOOK_PASSWORD'],
    [{ BFF_WEBHOOK_PASSWORD: 'gateway' }, 'BFF_WEBHOOK_PASSWORD: must be set'],
    [{ BFF_WEBHOOK_USER: 'gateway' }, 'BFF_WEBHOOK_USER: must be set'],
    [{ BFF_PUBLIC_URL: 'http://pay.example' }, 'BFF_PUBLIC_URL: must be an https:// URL'],
    [{ GATEWAY_BASE_URL: 'http://gateway.example' }, 'GATEWAY_BASE_URL: must be an https:// URL'],
    [
      { INTEGRATION_BASE_URL: 'http://integration.example' },
      'INTEGRATION_BASE_URL: must be an https:// URL',
    ],
    [{ BFF_PUBLIC_URL: undefined }, 'BFF_PUBLIC_URL'],
    [
      { GATEWAY_USERNAME: undefined, GATEWAY_PASSWORD: undefined },
      "GATEWAY_USERNAME: must not be the sandbox's",
    ],
    [
      { INTEGRATION_USERNAME: 'sandbox', INTEGRATION_PASSWORD: 'sandbox' },
      "INTEGRATION_USERNAME: must not be the sandbox's",
    ],
  ])('production refuses %o with one line naming it', (vars, line) => {
    expect(() => readBffEnv({ ...PRODUCTION, ...vars })).toThrow(line);
  });

  it('warns outside production when the webhook credentials or the merchant secret are defaults', () => {
    const warned = readBffEnv({}).warnings.join('\n');
    expect(warned).toMatch(/BFF_WEBHOOK_USER and BFF_WEBHOOK_PASSWORD/);
    expect(warned).toMatch(/demo secret sk_test_local; set BFF_MERCHANT_SECRET/);
    expect(
      readBffEnv({
        BFF_WEBHOOK_USER: 'u1',
        BFF_WEBHOOK_PASSWORD: 'p1-secret',
        BFF_MERCHANT_SECRET: 'sk_live_0123456789',
      }).warnings,
    ).toEqual([]);
  });

  it('an https public URL is production unless NODE_ENV says development or test', () => {
    const deployed = { BFF_PUBLIC_URL: 'https://pay.example' };
    expect(() => readBffEnv(deployed)).toThrow(/BFF_MERCHANT_SECRET: is required in production/);
    expect(() => readBffEnv({ ...deployed, NODE_ENV: 'prod' })).toThrow(/BFF_MERCHANT_SECRET/);
    expect(readBffEnv({ ...deployed, NODE_ENV: 'test' }).config.publicUrl).toBe(
      'https://pay.example',
    );
    expect(readBffEnv({ BFF_PUBLIC_URL: 'http://localhost:3001' }).config.merchantSecret).toBe(
      'sk_test_local',
    );
  });

  it('reads numbers as digits only; an empty value is the default, never 0', () => {
    expect(readBffEnv({ BFF_RESOLVE_INTERVAL_MS: '' }).resolver.intervalMs).toBe(60_000);
    expect(readBffEnv({ BFF_RESOLVE_INTERVAL_MS: '  ' }).resolver.intervalMs).toBe(60_000);
    expect(readBffEnv({ BFF_SESSION_RATE_LIMIT: '' }).config.sessionRateLimitPerMinute).toBe(600);
    expect(readBffEnv({ BFF_PORT: ' 8080 ' }).port).toBe(8080);
    for (const [name, value] of [
      ['BFF_PORT', '0x1F90'],
      ['BFF_RESOLVE_INTERVAL_MS', '1e3'],
      ['BFF_PAY_RATE_LIMIT', '2.5'],
    ] as const) {
      expect(() => readBffEnv({ [name]: value }), name).toThrow(
        new RegExp(`${name}: must be a whole number`),
      );
    }
  });

  it('reads BFF_TRUST_PROXY as hops or proxy addresses, and the session rate limit', () => {
    expect(readBffEnv({}).config.trustProxy).toBe(false);
    expect(readBffEnv({ BFF_TRUST_PROXY: 'true' }).config.trustProxy).toBe(1);
    expect(readBffEnv({ BFF_TRUST_PROXY: '2' }).config.trustProxy).toBe(2);
    expect(readBffEnv({ BFF_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).config.trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
    ]);
    expect(readBffEnv({}).config.sessionRateLimitPerMinute).toBe(600);
    expect(readBffEnv({ BFF_SESSION_RATE_LIMIT: '0' }).config.sessionRateLimitPerMinute).toBe(0);
    expect(readBffEnv({}).databasePoolSize).toBe(10);
    expect(readBffEnv({ BFF_DB_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    expect(readBffEnv({}).databaseNamedStatements).toBe(true);
    expect(readBffEnv({ BFF_DB_NAMED_STATEMENTS: 'off' }).databaseNamedStatements).toBe(false);
    expect(() => readBffEnv({ BFF_DB_NAMED_STATEMENTS: 'no' })).toThrow(/BFF_DB_NAMED_STATEMENTS/);
    expect(readBffEnv({}).config.inboxClaimMs).toBe(60_000);
    expect(readBffEnv({ BFF_INBOX_CLAIM_MS: '5000' }).config.inboxClaimMs).toBe(5_000);
  });

  it.each([
    [{ BFF_PORT: 'abc' }, 'BFF_PORT'],
    [{ BFF_PUBLIC_URL: 'localhost:3001' }, 'BFF_PUBLIC_URL'],
    [{ BFF_ALLOWED_ORIGINS: 'https://a.example/path' }, 'BFF_ALLOWED_ORIGINS'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ RECURRENCE_USERNAME: 'r' }, 'RECURRENCE_PASSWORD'],
    [{ BFF_MERCHANT_SECRET: 'short' }, 'BFF_MERCHANT_SECRET'],
    [{ BFF_TRUST_PROXY: 'yes' }, 'BFF_TRUST_PROXY'],
    [{ BFF_TRUST_PROXY: '10.0.0.0/99' }, 'BFF_TRUST_PROXY'],
    [{ BFF_SESSION_RATE_LIMIT: '-1' }, 'BFF_SESSION_RATE_LIMIT'],
    [{ BFF_DB_POOL_SIZE: '0' }, 'BFF_DB_POOL_SIZE'],
    [{ BFF_INBOX_CLAIM_MS: '10' }, 'BFF_INBOX_CLAIM_MS'],
  ])('rejects %o naming %s', (vars, name) => {
    expect(() => readBffEnv(vars)).toThrow(
      new RegExp(`invalid BFF configuration:[\\s\\S]*${name}:`),
    );
  });

  /**
   * A secret is worth starting with only if a request can present it: the merchant API reads
   * `Authorization: Bearer <secret>`, the webhook receiver `Authorization: Basic` of
   * `user:password` (at most 1024 base64 characters).
   */
  describe('secrets a request can present', () => {
    it.each([
      'sk live 0123456789',
      'sk_live_0123456789 ',
      '\tsk_live_0123456789',
      'sk_0123\n456789',
    ])('refuses BFF_MERCHANT_SECRET %j, naming the rule', (secret) => {
      expect(() => readBffEnv({ BFF_MERCHANT_SECRET: secret })).toThrow(
        /BFF_MERCHANT_SECRET: must not contain whitespace/,
      );
    });

    it.each(['sk_live_0123456789', 'sk!#$%&\'*+-./:;<=>?@[]^_`{|}~"0', 'x'.repeat(200)])(
      'takes BFF_MERCHANT_SECRET %j, and the merchant API takes it as a Bearer',
      async (secret) => {
        const { config } = readBffEnv({ BFF_MERCHANT_SECRET: secret });
        const app = new Hono<BffEnv>()
          .use(requireMerchant({ config } as BffContext))
          .get('/', (c) => c.text('in'));
        const res = await app.request('/', { headers: { authorization: `Bearer ${secret}` } });
        expect(res.status).toBe(200);
      },
    );

    it('refuses webhook credentials no Basic header can carry', () => {
      expect(() => readBffEnv({ BFF_WEBHOOK_USER: 'gate:way' })).toThrow(
        /BFF_WEBHOOK_USER: must not contain a colon/,
      );
      expect(() => readBffEnv({ BFF_WEBHOOK_PASSWORD: 'p'.repeat(761) })).toThrow(
        /BFF_WEBHOOK_PASSWORD: with BFF_WEBHOOK_USER, at most 767 bytes/,
      );
      // A colon or a space in the password travels inside the base64; `u:…` of 768 bytes fits.
      const fits = readBffEnv({
        BFF_WEBHOOK_USER: 'u',
        BFF_WEBHOOK_PASSWORD: `a: b${'p'.repeat(762)}`,
      });
      expect(fits.config.webhook.password).toHaveLength(766);
    });
  });

  it("refuses a time in ms above Node's timer limit (2^31 - 1), which would fire at once", () => {
    for (const name of [
      'GATEWAY_TIMEOUT_MS',
      'BFF_RESOLVE_INTERVAL_MS',
      'BFF_STRANDED_MARGIN_MS',
    ] as const) {
      expect(() => readBffEnv({ [name]: '2147483648' }), name).toThrow(
        new RegExp(`${name}: must be at most 2147483647`),
      );
    }
    const env = readBffEnv({
      GATEWAY_TIMEOUT_MS: '2147483647',
      BFF_RESOLVE_INTERVAL_MS: '2147483647',
    });
    expect(env.gateway.timeoutMs).toBe(2_147_483_647);
    expect(env.resolver.intervalMs).toBe(2_147_483_647);
  });

  it('refuses a DATABASE_URL that is not a URL without printing its password', () => {
    let message = '';
    try {
      readBffEnv({ DATABASE_URL: 'postgres://app:pw#secret@db.example/bff' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/DATABASE_URL: must be a valid postgres:\/\/ URL/);
    expect(message).toMatch(/%23/);
    expect(message).not.toContain('pw#secret');
    expect(
      readBffEnv({ DATABASE_URL: 'postgres://app:pw%23secret@db.example/bff' }).databaseUrl,
    ).toBe('postgres://app:pw%23secret@db.example/bff');
    // A Unix socket, as node-postgres (and Cloud SQL) read it: no host, the socket in `host=`.
    for (const url of [
      'postgres://app:secret@/cc?host=/var/run/postgresql',
      'postgresql://app:secret@/cc?host=/cloudsql/proj:region:inst',
      'postgres:///cc?host=/var/run/postgresql',
    ]) {
      expect(readBffEnv({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });
});
