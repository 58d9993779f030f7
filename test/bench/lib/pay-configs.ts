import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DEVICE_INFO, encryptWithKey, MERCHANT_ORIGIN, MERCHANT_SECRET } from '../../support/bff';
import { bffProcess, type BffProcess } from '../../support/bff-process';
import { freePort, startChildServer } from '../../support/child-server';
import { cpuMs } from './proc';
import type { Answer, BenchClient } from './http';

/*
 * What test/bench/bff-pay.ts pays against: the sandbox directly, or BFF instances (processes
 * of `npm run bff`'s bundle) on one store, and how to count the charges each recorded.
 */

export const CARD = '4000000000002701';
const AMOUNT = 10_000;

/** One prepared pay: where it goes and what it carries (serialized before the clock runs). */
export interface Item {
  port: number;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface Config {
  name: string;
  /** POST unless said. */
  method?: 'GET';
  /** False: its requests charge nothing (no pay reaches the sandbox). */
  charges?: false;
  path: string;
  /** Whether an answer is a successful pay. */
  ok(a: Answer): boolean;
  /** `n` pays ready to send; their sessions' creation timed into `timed` when given. */
  prepare(n: number, timed?: Timed): Promise<Item[]>;
  bffPids(): number[];
  /** Whether the BFF instances keep their store in PostgreSQL. */
  postgres: boolean;
  /** Successful charges recorded in the configuration's own store (null: none). */
  countCharges(): Promise<number | null>;
  close(): Promise<void>;
}

export interface Timed {
  n: number;
  seconds: number;
  lat: number[];
  bffCpu: number;
}

/** What server/bff/payments/pay.ts sends the gateway for a credit pay, with a fresh card. */
function gatewayPayBody(pem: string, reference: string): string {
  return JSON.stringify({
    payment: { transactionType: 'credit', amount: AMOUNT, productType: 'avista', installments: 1 },
    referenceTransaction: reference,
    sellerInfo: { codeAntiFraud: randomUUID() },
    customer: { ipAddress: '127.0.0.1' },
    cardInfo: { encryptedCard: encryptWithKey(pem, CARD), cardholderName: 'MARIA SILVA' },
  });
}

const gatewayApproved = (a: Answer) => a.status === 200 && a.body.includes('"returnCode":"00"');

export function directConfig(
  client: BenchClient,
  port: number,
  token: string,
  pem: string,
): Config {
  let seq = 0;
  return {
    name: 'sandbox direct',
    path: '/v1/payments',
    ok: gatewayApproved,
    async prepare(n) {
      return Array.from({ length: n }, () => ({
        port,
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': `pa_${randomUUID()}` },
        body: gatewayPayBody(pem, `bench-direct-${++seq}`),
      }));
    },
    bffPids: () => [],
    postgres: false,
    countCharges: async () => null,
    close: async () => {},
  };
}

/**
 * The floor under the BFF (test/bench/lib/baseline-server.ts, its own process): Hono's
 * hello-world, and the same pay as `directConfig`'s passed through a Hono app to the sandbox.
 * Their server's CPU is counted where a BFF's is.
 */
export async function baselineConfigs(opts: {
  sandboxUrl: string;
  token: string;
  pem: string;
  onExit: (stop: () => Promise<void>) => void;
}): Promise<{ hello: Config; passThrough: Config }> {
  const port = await freePort();
  const server = await startChildServer(
    fileURLToPath(new URL('./baseline-server.ts', import.meta.url)),
    { BASELINE_PORT: String(port), GATEWAY_URL: opts.sandboxUrl, GATEWAY_TOKEN: opts.token },
    ['baseline ready'],
    ['--import', 'tsx'],
  );
  // Kept for every round; stopped on the way out.
  opts.onExit(async () => {
    await server.stop();
  });
  const common = {
    bffPids: () => [server.pid],
    postgres: false,
    countCharges: async () => null,
    close: async () => {},
  };
  let seq = 0;
  return {
    hello: {
      ...common,
      name: 'Hono hello-world',
      method: 'GET',
      charges: false,
      path: '/hello',
      ok: (a) => a.status === 200 && a.body === 'Hello Hono!',
      prepare: async (n) =>
        Array.from({ length: n }, () => ({ port, headers: {}, body: undefined })),
    },
    passThrough: {
      ...common,
      name: 'Hono pass-through',
      path: '/pay',
      ok: (a) => a.status === 200 && a.body.startsWith('{"status":"succeeded"'),
      async prepare(n) {
        return Array.from({ length: n }, () => ({
          port,
          headers: {},
          body: gatewayPayBody(opts.pem, `bench-through-${++seq}`),
        }));
      },
    },
  };
}

export async function bffConfig(opts: {
  name: string;
  client: BenchClient;
  sandboxUrl: string;
  instances: number;
  /** `BFF_DB` or `DATABASE_URL`, shared by the instances. */
  store: Record<string, string>;
  /** Succeeded payment attempts in that store. */
  countCharges: () => Promise<number>;
  /** Session creation's concurrency. */
  concurrency: number;
  /** Registers the stop of the instances, run on the way out even if this start fails. */
  onExit: (stop: () => Promise<void>) => void;
  /** Another checkout whose BFF runs instead (`BENCH_COMPARE`). */
  cwd?: string;
}): Promise<Config> {
  const { name, client, sandboxUrl, instances, store, countCharges, concurrency } = opts;
  const bffs: BffProcess[] = [];
  // BENCH_CPU_PROF=<dir>: each BFF instance writes a V8 CPU profile there when it stops.
  const profileDir = process.env.BENCH_CPU_PROF;
  const close = async () => {
    for (const b of bffs.splice(0)) {
      if (profileDir) await b.terminate();
      await b.close();
    }
  };
  opts.onExit(close);
  for (let i = 0; i < instances; i++) {
    bffs.push(
      await bffProcess({
        sandboxUrl,
        store,
        bundled: true,
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
        env: {
          LOG_LEVEL: 'warn',
          BFF_PAY_RATE_LIMIT: '1000000000',
          BFF_SESSION_RATE_LIMIT: '0',
          // BENCH_DB_POOL: PostgreSQL connections per instance (the BFF's default otherwise).
          ...(process.env.BENCH_DB_POOL ? { BFF_DB_POOL_SIZE: process.env.BENCH_DB_POOL } : {}),
        },
      }),
    );
  }
  // The first alone (it may rebuild the bundle and migrates the store), then the others.
  await bffs[0]!.start();
  await Promise.all(bffs.slice(1).map((b) => b.start()));
  const ports = bffs.map((b) => Number(new URL(b.url).port));
  let pem = '';

  const createSessions = async (n: number, timed?: Timed): Promise<string[]> => {
    const secrets: string[] = [];
    const lat: number[] = [];
    const body = JSON.stringify({ amount: AMOUNT, origin: MERCHANT_ORIGIN, maxInstallments: 1 });
    const headers = { authorization: `Bearer ${MERCHANT_SECRET}` };
    const pids = bffs.map((b) => b.pid()!);
    const cpu0 = cpuMs(pids);
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        const a = await client.send(
          ports[i % ports.length]!,
          'POST',
          '/v1/checkout-sessions',
          headers,
          body,
        );
        lat.push(performance.now() - s);
        if (a.status !== 201)
          throw new Error(`create session: ${a.status} ${a.body.slice(0, 300)}`);
        secrets[i] = (JSON.parse(a.body) as { clientSecret: string }).clientSecret;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (timed) {
      timed.n = n;
      timed.seconds = (performance.now() - t0) / 1000;
      timed.bffCpu = (cpuMs(pids) - cpu0) / n;
      timed.lat = lat.sort((a, b) => a - b);
    }
    return secrets;
  };

  return {
    name,
    path: '/checkout/api/pay',
    ok(a) {
      if (a.status !== 200) return false;
      try {
        return (JSON.parse(a.body) as { status?: string }).status === 'succeeded';
      } catch {
        return false;
      }
    },
    async prepare(n, timed) {
      const secrets = await createSessions(n, timed);
      if (!pem) {
        const a = await client.request(
          ports[0]!,
          'GET',
          '/checkout/api/public-key',
          undefined,
          secrets[0],
        );
        pem = (JSON.parse(a.body) as { key: string }).key;
      }
      // Sent to another instance than the one that created the session: no stickiness.
      return secrets.map((secret, i) => ({
        port: ports[(i + 1) % ports.length]!,
        headers: { authorization: `Bearer ${secret}`, 'idempotency-key': `idem-${randomUUID()}` },
        body: JSON.stringify({
          method: 'credit',
          installments: 1,
          encryptedCard: encryptWithKey(pem, CARD),
          cardholderName: 'MARIA SILVA',
          deviceInfo: DEVICE_INFO,
          fingerprint: randomUUID(),
        }),
      }));
    },
    bffPids: () => bffs.map((b) => b.pid()!),
    postgres: 'DATABASE_URL' in store,
    countCharges,
    close,
  };
}

/** A fresh database `name` on the cluster at `adminUrl` (its `postgres` database). */
export async function pgDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; count(): Promise<number> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    async count() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const r = await c.query<{ n: number }>(
          "select count(*)::int as n from payment_attempts where status = 'succeeded'",
        );
        return r.rows[0]!.n;
      } finally {
        await c.end();
      }
    },
  };
}

/** One `select count(*) as n …` over a SQLite file, read-only. */
export function sqliteCount(file: string, query: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(query).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
