import { z } from 'zod';
import type { BffConfig } from './config';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** An absolute http(s) URL, returned without a trailing slash. */
const baseUrl = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^https?:\/\/[^/]/.test(v) && URL.canParse(v), {
      error: 'must be an http(s) URL',
    })
    .transform((v) => v.replace(/\/+$/, ''));

const originList = z
  .string()
  .default('http://localhost:3000')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((list) => list.length > 0, { error: 'must list at least one origin' })
  .refine((list) => list.every(isOrigin), {
    error: 'must be a comma-separated list of origins like https://shop.example (no path)',
  });

export function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}

const EnvSchema = z
  .object({
    NODE_ENV: z.string().default('development'),
    BFF_PORT: port(3001),
    BFF_HOST: z.string().min(1).default('127.0.0.1'),
    BFF_PUBLIC_URL: baseUrl('http://localhost:3001'),
    BFF_MERCHANT_SECRET: z
      .string()
      .min(12, { error: 'must be at least 12 characters' })
      .max(200)
      .optional(),
    BFF_ALLOWED_ORIGINS: originList,
    BFF_WEBHOOK_USER: z.string().min(1).default('gateway'),
    BFF_WEBHOOK_PASSWORD: z.string().min(1).default('gateway'),
    /** Register `<BFF_PUBLIC_URL>/webhooks/gateway` with the gateway at start. */
    BFF_WEBHOOK_REGISTER: z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default('false')
      .transform((v) => v === 'true' || v === '1'),
    BFF_WEBHOOK_ACCOUNT: z
      .string()
      .regex(/^\d{1,18}$/, { error: 'must be an account number (digits)' })
      .default('1001'),
    /** How often timed-out payments are looked up in the reconciliation ledger; 0 = never. */
    BFF_RESOLVE_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
    /**
     * Added to twice the gateway timeout: an attempt still waiting for the gateway after that
     * was stranded by a crash and is looked up like a timed-out one.
     */
    BFF_STRANDED_MARGIN_MS: z.coerce.number().int().min(0).default(60_000),
    BFF_MAX_ATTEMPTS: positiveInt(3),
    BFF_PAY_RATE_LIMIT: positiveInt(10),
    BFF_STATIC_DIR: z.string().min(1).default('dist'),
    BFF_TRUST_PROXY: z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default('false')
      .transform((v) => v === 'true' || v === '1'),
    DATABASE_URL: z.string().min(1).optional(),
    BFF_DB: z.string().min(1).default('./data/bff.sqlite'),
    GATEWAY_BASE_URL: baseUrl('http://localhost:4010'),
    INTEGRATION_BASE_URL: baseUrl('http://localhost:4010'),
    GATEWAY_USERNAME: z.string().min(1).max(30).default('sandbox'),
    GATEWAY_PASSWORD: z.string().min(1).max(256).default('sandbox'),
    RECURRENCE_USERNAME: z.string().min(1).max(30).optional(),
    RECURRENCE_PASSWORD: z.string().min(1).max(256).optional(),
    INTEGRATION_USERNAME: z.string().min(1).max(30).optional(),
    INTEGRATION_PASSWORD: z.string().min(1).max(256).optional(),
    GATEWAY_TIMEOUT_MS: positiveInt(30_000),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.BFF_MERCHANT_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['BFF_MERCHANT_SECRET'],
        message: 'is required when NODE_ENV is production',
      });
    }
    if (env.DATABASE_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'must be a postgres:// URL (leave it unset for SQLite)',
      });
    }
    for (const [user, pass] of [
      ['RECURRENCE_USERNAME', 'RECURRENCE_PASSWORD'],
      ['INTEGRATION_USERNAME', 'INTEGRATION_PASSWORD'],
    ] as const) {
      if (Boolean(env[user]) !== Boolean(env[pass])) {
        ctx.addIssue({
          code: 'custom',
          path: [env[user] ? pass : user],
          message: `is required with ${env[user] ? user : pass}`,
        });
      }
    }
  });

export interface BffEnv {
  port: number;
  host: string;
  /** `postgres://…` or a SQLite file path. */
  databaseUrl: string;
  logLevel: (typeof LOG_LEVELS)[number];
  gateway: {
    gatewayBaseUrl: string;
    integrationBaseUrl: string;
    timeoutMs: number;
    credentials: {
      gateway: { userName: string; password: string };
      recurrence?: { userName: string; password: string };
      integration?: { userName: string; password: string };
    };
  };
  config: BffConfig;
  /** Webhook URL registration at start (BFF_WEBHOOK_REGISTER, BFF_WEBHOOK_ACCOUNT). */
  webhookRegistration: { enabled: boolean; accountNumber: string };
  /** Timed-out payments looked up every `intervalMs` (0 = off) in the account's ledger. */
  resolver: { intervalMs: number; accountNumber: string; strandedAfterMs: number };
}

/**
 * The one place the BFF reads `process.env`. Every value is validated; a bad or missing one
 * stops start-up with a message naming each variable and what is wrong with it.
 */
export function readBffEnv(env: NodeJS.ProcessEnv = process.env): BffEnv {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid BFF configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const credentials: BffEnv['gateway']['credentials'] = {
    gateway: { userName: e.GATEWAY_USERNAME, password: e.GATEWAY_PASSWORD },
  };
  if (e.RECURRENCE_USERNAME && e.RECURRENCE_PASSWORD) {
    credentials.recurrence = { userName: e.RECURRENCE_USERNAME, password: e.RECURRENCE_PASSWORD };
  }
  if (e.INTEGRATION_USERNAME && e.INTEGRATION_PASSWORD) {
    credentials.integration = {
      userName: e.INTEGRATION_USERNAME,
      password: e.INTEGRATION_PASSWORD,
    };
  }
  return {
    port: e.BFF_PORT,
    host: e.BFF_HOST,
    databaseUrl: e.DATABASE_URL ?? e.BFF_DB,
    logLevel: e.LOG_LEVEL,
    gateway: {
      gatewayBaseUrl: e.GATEWAY_BASE_URL,
      integrationBaseUrl: e.INTEGRATION_BASE_URL,
      timeoutMs: e.GATEWAY_TIMEOUT_MS,
      credentials,
    },
    config: {
      publicUrl: e.BFF_PUBLIC_URL,
      merchantSecret: e.BFF_MERCHANT_SECRET ?? 'sk_test_local',
      allowedOrigins: e.BFF_ALLOWED_ORIGINS,
      webhook: { user: e.BFF_WEBHOOK_USER, password: e.BFF_WEBHOOK_PASSWORD },
      maxAttempts: e.BFF_MAX_ATTEMPTS,
      payRateLimitPerMinute: e.BFF_PAY_RATE_LIMIT,
      staticDir: e.BFF_STATIC_DIR,
      trustProxy: e.BFF_TRUST_PROXY,
      accountNumber: e.BFF_WEBHOOK_ACCOUNT,
    },
    webhookRegistration: { enabled: e.BFF_WEBHOOK_REGISTER, accountNumber: e.BFF_WEBHOOK_ACCOUNT },
    resolver: {
      intervalMs: e.BFF_RESOLVE_INTERVAL_MS,
      accountNumber: e.BFF_WEBHOOK_ACCOUNT,
      // A call (token included) ends within the gateway timeout; twice that plus a margin
      // leaves a live call of another BFF process alone.
      strandedAfterMs: 2 * e.GATEWAY_TIMEOUT_MS + e.BFF_STRANDED_MARGIN_MS,
    },
  };
}
