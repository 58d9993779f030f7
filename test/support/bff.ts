import {
  constants,
  generateKeyPairSync,
  publicEncrypt,
  randomBytes,
  randomUUID,
} from 'node:crypto';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { ApiError } from '../../contract/events';
import { createBffApp, type Bff, type BffDeps } from '../../server/bff/app';
import { eventDeliveryOf } from '../../server/bff/events/delivery';
import type { CreateSessionBody, CreatedSession, PayBody } from '../../server/bff/checkout-api';
import { defaultBffConfig, type BffConfig } from '../../server/bff/config';
import type { BffDb } from '../../server/bff/db';
import { createGatewayClient } from '../../server/gateway/client';
import { OffsetClock } from '../../server/lib/clock';
import { openDb } from '../../server/lib/db';
import type { SyncFile } from '../../server/lib/db-sync';
import { createLogger } from '../../server/lib/logging';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import { startSandbox, type TestSandbox } from './sandbox';
import { listen } from './servers';

export const MERCHANT_SECRET = 'sk_test_bff_integration';
export const MERCHANT_ORIGIN = 'http://shop.test:3000';

export interface HttpAnswer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

export interface TestBff {
  url: string;
  bff: Bff;
  sandbox: TestSandbox;
  clock: OffsetClock;
  /** Every JSON log line the BFF wrote (level debug). */
  logs: string[];
  /** fetch against the BFF; a non-string body is sent as JSON. */
  request(
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpAnswer>;
  /** `POST /v1/checkout-sessions` with the merchant secret. */
  createSession(body?: Partial<CreateSessionBody>): Promise<CreatedSession>;
  /** A frame API call with the client secret. */
  frame(
    secret: string,
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpAnswer>;
  /** The gateway public key, through the BFF. */
  publicKey(secret: string): Promise<string>;
  /** A fresh ciphertext of a card (DESIGN §3 plaintext, RSA-OAEP SHA-256). */
  encryptCard(secret: string, number: string, securityCode?: string): Promise<string>;
  /** A complete pay body for a card (fresh ciphertext). */
  payBody(
    secret: string,
    number: string,
    overrides?: Partial<PayBody>,
  ): Promise<PayBody & Record<string, unknown>>;
  /** `POST /checkout/api/pay` with a new (or given) idempotency key. */
  pay(secret: string, body: unknown, key?: string): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export const DEVICE_INFO = {
  language: 'pt-BR',
  javaEnabled: false,
  colorDepth: 24,
  screenHeight: 900,
  screenWidth: 1440,
  timezoneOffset: 180,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) test',
} as const;

async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** A future expiry, two digits each. */
/**
 * The merchant API's error object of an answer (`{"error": {...}}`); throws when the answer
 * is not one, so a test reading it also proves the shape.
 */
export function apiError(res: { status: number; body: unknown }): ApiError['error'] {
  const body = res.body as Partial<ApiError> | null;
  if (!body || typeof body !== 'object' || !body.error || typeof body.error.code !== 'string') {
    throw new Error(`not an API error object (HTTP ${res.status}): ${JSON.stringify(res.body)}`);
  }
  if (typeof body.error.requestId !== 'string' || body.error.requestId === '') {
    throw new Error('an API error object without a requestId');
  }
  return body.error;
}

export function futureExpiry(): { month: string; year: string } {
  const y = (new Date().getUTCFullYear() + 3) % 100;
  return { month: '12', year: String(y).padStart(2, '0') };
}

/** The DESIGN §3 card plaintext encrypted with a PEM key. */
export function encryptWithKey(pem: string, number: string, securityCode = '123'): string {
  const { month, year } = futureExpiry();
  const plaintext = JSON.stringify({
    number,
    securityCode,
    expirationMonth: month,
    expirationYear: year,
    timestamp: Date.now(),
    nonce: randomBytes(8).toString('hex'),
  });
  return publicEncrypt(
    { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plaintext, 'utf8'),
  ).toString('base64');
}

/**
 * A credit pay of the session whose card is encrypted with a key the gateway does not hold
 * (as after a key rotation): the gateway cannot open it.
 */
export async function payWithAnotherKey(t: TestBff, secret: string) {
  const number = '4000000000002701';
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const body = await t.payBody(secret, number, {
    method: 'credit',
    encryptedCard: encryptWithKey(pem, number),
  });
  return t.pay(secret, body);
}

/** A store URL for one test BFF: a fresh PostgreSQL schema, or SQLite in memory. */
export async function testDbUrl(given: string | undefined): Promise<string> {
  const url = given ?? process.env.BFF_TEST_DATABASE_URL ?? ':memory:';
  if (!/^postgres(ql)?:\/\//.test(url)) return url;
  // A URL that names its schema already (one made here, opened again by a restart) is kept.
  if (given && new URL(given).searchParams.get('options')?.includes('search_path')) return given;
  const { default: pg } = await import('pg');
  const schema = `bff_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/**
 * Starts the real sandbox and the BFF on loopback ports, the BFF using the real gateway client
 * against the sandbox. Logs go to memory at debug level so tests can read them.
 */
export async function startBff(
  opts: {
    config?: Partial<BffConfig>;
    sandbox?: TestSandbox;
    deps?: Partial<BffDeps>;
    /**
     * The BFF store: SQLite in memory by default; `BFF_TEST_DATABASE_URL=postgres://…` runs
     * the same tests on PostgreSQL, each BFF in a schema of its own.
     */
    dbUrl?: string;
    /** Per-call timeout of the gateway client (10 s by default). */
    gatewayTimeoutMs?: number;
    /** A SQLite file store only: durable commits (as the BFF runs), their WAL syncs through this. */
    syncWal?: SyncFile;
  } = {},
): Promise<TestBff> {
  const sandbox = opts.sandbox ?? (await startSandbox());
  const ownSandbox = !opts.sandbox;
  const clock = new OffsetClock();
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(line);
      done();
    },
  });
  const logger: Logger = createLogger({ level: 'debug', name: 'bff', destination });
  const { db, close: closeDb } = await openDb<BffDb>({
    url: await testDbUrl(opts.dbUrl),
    ...(opts.syncWal ? { durability: 'full' as const, durable: { syncFile: opts.syncWal } } : {}),
  });
  const holder: { fetch: (req: Request, env?: unknown) => Response | Promise<Response> } = {
    fetch: () => new Response('starting', { status: 503 }),
  };
  const server = await listen({
    fetch: (req: Request, env?: unknown) => holder.fetch(req, env),
  } as never);
  const gateway = createGatewayClient({
    gatewayBaseUrl: sandbox.url,
    integrationBaseUrl: sandbox.url,
    credentials: {
      gateway: { userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password },
    },
    timeoutMs: opts.gatewayTimeoutMs ?? 10_000,
  });
  const bff = await createBffApp({
    db,
    gateway,
    clock,
    logger,
    config: defaultBffConfig({
      publicUrl: server.url,
      merchantSecret: MERCHANT_SECRET,
      allowedOrigins: [MERCHANT_ORIGIN],
      staticDir: 'dist',
      ...opts.config,
    }),
    ...opts.deps,
  });
  holder.fetch = (req, env?: unknown) => bff.app.fetch(req, env);

  const request: TestBff['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    return answer(
      await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body } : {}) }),
    );
  };
  const frame: TestBff['frame'] = (secret, method, path, o = {}) =>
    request(method, path, { ...o, headers: { authorization: `Bearer ${secret}`, ...o.headers } });
  let keyCache: string | undefined;
  const publicKey = async (secret: string) => {
    if (keyCache) return keyCache;
    const res = await frame(secret, 'GET', '/checkout/api/public-key');
    if (res.status !== 200) throw new Error(`public key: ${res.status} ${res.text}`);
    keyCache = (res.body as { key: string }).key;
    return keyCache;
  };
  const encryptCard = async (secret: string, number: string, cvv?: string) =>
    encryptWithKey(await publicKey(secret), number, cvv);

  return {
    url: server.url,
    bff,
    sandbox,
    clock,
    logs,
    request,
    frame,
    publicKey,
    encryptCard,
    async createSession(body = {}) {
      const res = await request('POST', '/v1/checkout-sessions', {
        headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
        body: { amount: 10_000, origin: MERCHANT_ORIGIN, maxInstallments: 6, ...body },
      });
      if (res.status !== 201) throw new Error(`create session: ${res.status} ${res.text}`);
      return res.body as CreatedSession;
    },
    async payBody(secret, number, overrides = {}) {
      return {
        method: 'debit',
        installments: 1,
        encryptedCard: overrides.encryptedCard ?? (await encryptCard(secret, number)),
        cardholderName: 'MARIA SILVA',
        deviceInfo: { ...DEVICE_INFO },
        fingerprint: randomUUID(),
        ...overrides,
      };
    },
    pay(secret, body, key = `idem-${randomUUID()}`) {
      return frame(secret, 'POST', '/checkout/api/pay', {
        body,
        headers: { 'idempotency-key': key },
      });
    },
    async close() {
      eventDeliveryOf(bff.ctx)?.stop();
      await server.close();
      await closeDb();
      if (ownSandbox) await sandbox.close();
    },
  };
}

/** The first `<form>` of a page: its action (resolved against `base`) and its named fields. */
export function readForm(
  html: string,
  base: string,
): { action: string; fields: Record<string, string> } {
  const form = /<form\b[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no form in page:\n${html.slice(0, 500)}`);
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const fields: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/.exec(m[0]);
    const value = /\bvalue="([^"]*)"/.exec(m[0]);
    if (name) fields[decode(name[1]!)] = value ? decode(value[1]!) : '';
  }
  return { action: new URL(decode(form[1]!), base).toString(), fields };
}

/** Posts a form as a browser would (urlencoded), without following redirects. */
export async function postForm(url: string, fields: Record<string, string>): Promise<HttpAnswer> {
  return answer(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    }),
  );
}
