import { z } from 'zod';
import type { BffConfig } from './config';
import { parseTrustProxy } from './http/client-address';
import { milliseconds, port, wholeNumber } from '../lib/env-number';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const positiveInt = (fallback: number) => wholeNumber(fallback, 1);

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

/** The webhook Basic credentials of the local demo: refused in production. */
const DEFAULT_WEBHOOK = { user: 'gateway', password: 'gateway' } as const;
/** The sandbox's default client (DESIGN §5): never a production gateway credential. */
const SANDBOX_CREDENTIALS = { userName: 'sandbox', password: 'sandbox' } as const;
const DEMO_MERCHANT_SECRET = 'sk_test_local';
/** `user:password` the webhook receiver can read: 1024 base64 characters (webhooks/receiver.ts). */
const BASIC_MAX_BYTES = 768;

interface ParsedEnv {
  BFF_MERCHANT_SECRET?: string | undefined;
  BFF_WEBHOOK_USER: string;
  BFF_WEBHOOK_PASSWORD: string;
  BFF_PUBLIC_URL: string;
  GATEWAY_BASE_URL: string;
  INTEGRATION_BASE_URL: string;
  GATEWAY_USERNAME: string;
  GATEWAY_PASSWORD: string;
  RECURRENCE_USERNAME?: string | undefined;
  RECURRENCE_PASSWORD?: string | undefined;
  INTEGRATION_USERNAME?: string | undefined;
  INTEGRATION_PASSWORD?: string | undefined;
}

const EnvSchema = z
  .object({
    NODE_ENV: z.string().optional(),
    BFF_PORT: port(3001),
    BFF_HOST: z.string().min(1).default('127.0.0.1'),
    BFF_PUBLIC_URL: baseUrl('http://localhost:3001'),
    /** Presented as `Authorization: Bearer <secret>` (routes/merchant.ts): one token. */
    BFF_MERCHANT_SECRET: z
      .string()
      .min(12, { error: 'must be at least 12 characters' })
      .max(200, { error: 'must be at most 200 characters' })
      .regex(/^[^\s\p{Cc}]*$/u, {
        error:
          'must not contain whitespace or control characters (it travels as Authorization: Bearer <secret>)',
      })
      .optional(),
    BFF_ALLOWED_ORIGINS: originList,
    BFF_WEBHOOK_USER: z
      .string()
      .min(1)
      .regex(/^[^:]*$/, { error: 'must not contain a colon (Basic credentials are user:password)' })
      .default(DEFAULT_WEBHOOK.user),
    BFF_WEBHOOK_PASSWORD: z.string().min(1).default(DEFAULT_WEBHOOK.password),
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
    BFF_RESOLVE_INTERVAL_MS: milliseconds(60_000, 0),
    /**
     * Added to twice the gateway timeout: an attempt still waiting for the gateway after that
     * was stranded by a crash and is looked up like a timed-out one.
     */
    BFF_STRANDED_MARGIN_MS: milliseconds(60_000, 0),
    BFF_STOP_GRACE_MS: milliseconds(10_000, 0, 600_000),
    BFF_MAX_ATTEMPTS: positiveInt(3),
    BFF_PAY_RATE_LIMIT: positiveInt(10),
    BFF_STATIC_DIR: z.string().min(1).default('dist'),
    BFF_SESSION_RATE_LIMIT: wholeNumber(600, 0),
    BFF_INBOX_CLAIM_MS: milliseconds(60_000, 1_000, 3_600_000),
    /** Where the merchant's events are POSTed, signed (README "Events"); unset: not sent. */
    BFF_EVENTS_URL: z
      .string()
      .url({ error: 'must be an http(s) URL' })
      .regex(/^https?:\/\//, { error: 'must be an http(s) URL' })
      .optional(),
    /** The Standard Webhooks secret: `whsec_` and base64 of 24 to 64 random bytes. */
    BFF_EVENTS_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, {
        error: 'must be whsec_ followed by base64 of 24 to 64 bytes (see README "Events")',
      })
      .optional(),
    BFF_TRUST_PROXY: z
      .string()
      .default('false')
      .transform((v, ctx) => {
        const trust = parseTrustProxy(v);
        if (typeof trust === 'object' && 'error' in trust) {
          ctx.addIssue({ code: 'custom', message: trust.error });
          return z.NEVER;
        }
        return trust;
      }),
    DATABASE_URL: z.string().min(1).optional(),
    BFF_DB: z.string().min(1).default('./data/bff.sqlite'),
    BFF_DB_POOL_SIZE: wholeNumber(10, 1, 200),
    /** PostgreSQL: hot statements prepared by name per connection (`off` behind PgBouncer's transaction mode). */
    BFF_DB_NAMED_STATEMENTS: z.enum(['on', 'off']).default('on'),
    /** SQLite: each commit on disk before it returns (`full`), or only at checkpoints (`normal`). */
    BFF_SQLITE_SYNC: z.enum(['full', 'normal']).default('full'),
    GATEWAY_BASE_URL: baseUrl('http://localhost:4010'),
    INTEGRATION_BASE_URL: baseUrl('http://localhost:4010'),
    GATEWAY_USERNAME: z.string().min(1).max(30).default('sandbox'),
    GATEWAY_PASSWORD: z.string().min(1).max(256).default('sandbox'),
    RECURRENCE_USERNAME: z.string().min(1).max(30).optional(),
    RECURRENCE_PASSWORD: z.string().min(1).max(256).optional(),
    INTEGRATION_USERNAME: z.string().min(1).max(30).optional(),
    INTEGRATION_PASSWORD: z.string().min(1).max(256).optional(),
    GATEWAY_TIMEOUT_MS: milliseconds(30_000, 1),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  })
  .superRefine((env, ctx) => {
    if (isProduction(env)) {
      for (const [path, message] of productionProblems(env)) {
        ctx.addIssue({ code: 'custom', path: [path], message });
      }
    }
    if (env.DATABASE_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'must be a postgres:// URL (leave it unset for SQLite)',
      });
    } else if (env.DATABASE_URL && !URL.canParse(env.DATABASE_URL.replace('@/', '@localhost/'))) {
      // Never the value: it holds the password. A user with no host (`app:pw@/db?host=/socket`,
      // a Unix socket, as node-postgres reads it) is no URL's, but a valid connection string.
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'must be a valid postgres:// URL: percent-encode the user name and password (# as %23, @ as %40, / as %2F, : as %3A)',
      });
    }
    if (
      Buffer.byteLength(`${env.BFF_WEBHOOK_USER}:${env.BFF_WEBHOOK_PASSWORD}`) > BASIC_MAX_BYTES
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['BFF_WEBHOOK_PASSWORD'],
        message: `with BFF_WEBHOOK_USER, at most ${BASIC_MAX_BYTES - 1} bytes (the receiver reads Basic credentials of up to 1024 base64 characters)`,
      });
    }
    if (env.BFF_EVENTS_URL && !env.BFF_EVENTS_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['BFF_EVENTS_SECRET'],
        message: 'is required with BFF_EVENTS_URL (events are always signed)',
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

const usesDefaultWebhook = (e: ParsedEnv) =>
  e.BFF_WEBHOOK_USER === DEFAULT_WEBHOOK.user ||
  e.BFF_WEBHOOK_PASSWORD === DEFAULT_WEBHOOK.password;

/**
 * Production: `NODE_ENV=production`, or an https public URL unless NODE_ENV says development or
 * test (a deployment that forgot NODE_ENV must not start on the demo secret).
 */
function isProduction(e: { NODE_ENV?: string | undefined; BFF_PUBLIC_URL: string }): boolean {
  if (e.NODE_ENV === 'production') return true;
  if (e.NODE_ENV === 'development' || e.NODE_ENV === 'test') return false;
  return e.BFF_PUBLIC_URL.startsWith('https://');
}

/**
 * What production (`isProduction`) refuses, as `[variable, why]`: a default secret (merchant secret,
 * webhook credentials), a plain-HTTP public URL, or the sandbox's credentials for the gateway.
 */
function productionProblems(e: ParsedEnv): [string, string][] {
  const out: [string, string][] = [];
  if (!e.BFF_MERCHANT_SECRET) {
    out.push([
      'BFF_MERCHANT_SECRET',
      'is required in production (NODE_ENV=production, or an https BFF_PUBLIC_URL)',
    ]);
  } else if (e.BFF_MERCHANT_SECRET === DEMO_MERCHANT_SECRET) {
    out.push(['BFF_MERCHANT_SECRET', 'must not be the demo secret in production']);
  }
  if (usesDefaultWebhook(e)) {
    out.push([
      e.BFF_WEBHOOK_PASSWORD === DEFAULT_WEBHOOK.password
        ? 'BFF_WEBHOOK_PASSWORD'
        : 'BFF_WEBHOOK_USER',
      'must be set (not the default gateway/gateway) in production',
    ]);
  }
  if (!e.BFF_PUBLIC_URL.startsWith('https://')) {
    out.push(['BFF_PUBLIC_URL', 'must be an https:// URL when NODE_ENV is production']);
  }
  // The gateway credentials and every card ciphertext go there.
  for (const name of ['GATEWAY_BASE_URL', 'INTEGRATION_BASE_URL'] as const) {
    if (!e[name].startsWith('https://')) out.push([name, 'must be an https:// URL in production']);
  }
  for (const [user, pass] of [
    ['GATEWAY_USERNAME', 'GATEWAY_PASSWORD'],
    ['RECURRENCE_USERNAME', 'RECURRENCE_PASSWORD'],
    ['INTEGRATION_USERNAME', 'INTEGRATION_PASSWORD'],
  ] as const) {
    if (e[user] === SANDBOX_CREDENTIALS.userName && e[pass] === SANDBOX_CREDENTIALS.password) {
      out.push([user, "must not be the sandbox's credentials in production"]);
    }
  }
  return out;
}

export interface BffEnv {
  /** Lines to print at start: defaults that are fine for the demo but not for real money. */
  warnings: string[];
  port: number;
  host: string;
  /** `postgres://…` or a SQLite file path. */
  databaseUrl: string;
  /** PostgreSQL connections this instance may open. */
  databasePoolSize: number;
  /** PostgreSQL: prepare the hot statements by name (`BFF_DB_NAMED_STATEMENTS`). */
  databaseNamedStatements: boolean;
  /** SQLite: how durable a commit is when it returns (`BFF_SQLITE_SYNC`). */
  sqliteSync: 'full' | 'normal';
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
  /** How long a stop waits for a maintenance round under way (`BFF_STOP_GRACE_MS`). */
  stopGraceMs: number;
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
  const warnings: string[] = [];
  if (!e.BFF_MERCHANT_SECRET || e.BFF_MERCHANT_SECRET === DEMO_MERCHANT_SECRET) {
    warnings.push(
      'warning: the merchant API takes the published demo secret sk_test_local; set BFF_MERCHANT_SECRET',
    );
  }
  if (usesDefaultWebhook(e)) {
    warnings.push(
      'warning: the webhook receiver accepts the default credentials gateway/gateway; set BFF_WEBHOOK_USER and BFF_WEBHOOK_PASSWORD',
    );
  }
  return {
    warnings,
    port: e.BFF_PORT,
    host: e.BFF_HOST,
    databaseUrl: e.DATABASE_URL ?? e.BFF_DB,
    databasePoolSize: e.BFF_DB_POOL_SIZE,
    databaseNamedStatements: e.BFF_DB_NAMED_STATEMENTS === 'on',
    sqliteSync: e.BFF_SQLITE_SYNC,
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
      sessionRateLimitPerMinute: e.BFF_SESSION_RATE_LIMIT,
      inboxClaimMs: e.BFF_INBOX_CLAIM_MS,
      eventsUrl: e.BFF_EVENTS_URL ?? '',
      eventsSecret: e.BFF_EVENTS_SECRET ?? '',
    },
    webhookRegistration: { enabled: e.BFF_WEBHOOK_REGISTER, accountNumber: e.BFF_WEBHOOK_ACCOUNT },
    resolver: {
      intervalMs: e.BFF_RESOLVE_INTERVAL_MS,
      accountNumber: e.BFF_WEBHOOK_ACCOUNT,
      // A call (token included) ends within the gateway timeout; twice that plus a margin
      // leaves a live call of another BFF process alone.
      strandedAfterMs: 2 * e.GATEWAY_TIMEOUT_MS + e.BFF_STRANDED_MARGIN_MS,
    },
    stopGraceMs: e.BFF_STOP_GRACE_MS,
  };
}
