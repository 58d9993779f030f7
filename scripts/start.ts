import { randomBytes } from 'node:crypto';
// `npm start`: the demo stack in one process — gateway sandbox, BFF and storefront — each on
// its own origin, built by the apps' factories. The widget is built first when it is missing or
// older than its sources, so a fresh clone needs only `npm install && npm start`.
import { serve, type ServerType } from '@hono/node-server';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { createDemoApp } from '../demo/app';
import { ensureDemoPlan, subscriptionDemo } from '../demo/subscription';
import type { ConsoleSection } from '../demo/views';
import { defaultBffConfig, type BffConfig } from '../server/bff/config';
import { readBffEnv, type BffEnv } from '../server/bff/env';
import { startBff } from '../server/bff/start';
import { createGatewayClient } from '../server/gateway/client';
import { openDb } from '../server/lib/db';
import { readPort } from '../server/lib/env-number';
import { listenError } from '../server/lib/listen-error';
import { createLogger, silentLogger } from '../server/lib/logging';
import { httpServerStopper } from '../server/lib/server-close';
import { createSandboxApp } from '../server/sandbox/app';
import { DEFAULT_CLIENT } from '../server/sandbox/clients';
import { clockOffsetNotice } from '../server/sandbox/clock/store';
import type { SandboxDb } from '../server/sandbox/db';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const DIST_DIR = join(ROOT, 'dist');

const BUILD_OUTPUTS = [
  'widget/card-checkout.js',
  'widget/manifest.json',
  'frame/card-form.js',
  'frame/manifest.json',
];
// The widget imports contract/ (types and constants shared with the BFF).
const BUILD_INPUTS = ['widget', 'contract', 'vite.config.ts', 'package.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when a bundle is missing or a widget source changed after the last build. */
export function widgetBuildIsStale(root = ROOT): boolean {
  const outputs = BUILD_OUTPUTS.map((p) => join(root, 'dist', p));
  if (outputs.some((p) => !existsSync(p))) return true;
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  return BUILD_INPUTS.some((p) => newestMtime(join(root, p)) > built);
}

/** Runs `vite build` when needed; throws with vite's output when the build fails. */
export function ensureWidgetBuilt(opts: { root?: string; quiet?: boolean } = {}): boolean {
  const root = opts.root ?? ROOT;
  if (!existsSync(join(root, 'vite.config.ts'))) return false;
  if (!widgetBuildIsStale(root)) return false;
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const run = spawnSync(process.execPath, [vite, 'build'], {
    cwd: root,
    stdio: opts.quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    throw new Error(
      `vite build failed (${run.status ?? run.signal})\n${run.stdout ?? ''}${run.stderr ?? ''}`,
    );
  }
  return true;
}

interface Bound {
  url: string;
  port: number;
  /**
   * Starts answering with the app once it is built (its URL must be known first); requests
   * that came before wait for it.
   */
  serve(fetch: (req: Request) => Response | Promise<Response>): void;
  /**
   * New requests refused, those under way given `graceMs` (the first call's; once); with
   * `waitForRunning` those whose handler runs are answered however long it takes.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Binds a port first, so each app can be told its own public URL before it is built. A failed
 * listen names the app and the variable that chose the port.
 */
function bind(
  app: { name: string; portVar: string; waitForRunning?: boolean },
  port: number,
  host: string,
  publicHost: string,
): Promise<Bound> {
  // Until its app is built, a request waits for it (the BFF may deliver an event to the
  // storefront that is still starting: a 503 would spend one of the event's tries); a stop
  // before then answers it 503.
  let built: ((req: Request) => Response | Promise<Response>) | null = null;
  let started: (() => void)[] = [];
  const handler = async (req: Request) => {
    if (!built && !closed) await new Promise<void>((r) => started.push(r));
    return built ? built(req) : new Response('stopping', { status: 503 });
  };
  const release = () => {
    for (const r of started) r();
    started = [];
  };
  let closed: Promise<void> | null = null;
  return new Promise((done, fail) => {
    const server: ServerType = serve(
      { fetch: (req: Request) => handler(req), port, hostname: host },
      (info: AddressInfo) =>
        done({
          url: `http://${publicHost}:${info.port}`,
          port: info.port,
          serve: (fetch) => {
            built = fetch;
            release();
          },
          close: (graceMs) => {
            closed ??= stopServer(graceMs);
            release();
            return closed;
          },
        }),
    );
    const stopServer = httpServerStopper(server, { waitForRunning: app.waitForRunning ?? false });
    server.once('error', (err) =>
      fail(listenError(app.name, { port: app.portVar }, { host, port }, err)),
    );
  });
}

export interface StackOptions {
  /** Folder for the SQLite files. */
  dataDir: string;
  /** 0 picks a free port. */
  ports?: { sandbox: number; bff: number; demo: number };
  /** Address to bind (loopback). */
  host?: string;
  /** Host name in the public URLs (`localhost` for people, `127.0.0.1` for tests). */
  publicHost?: string;
  merchantSecret?: string;
  /** The `whsec_…` the BFF signs events with and the storefront verifies (random if unset). */
  eventsSecret?: string;
  loggers?: { sandbox?: Logger; bff?: Logger; demo?: Logger };
  distDir?: string;
  /** BFF settings beyond the wiring (e.g. a higher pay rate limit for tests). */
  bffConfig?: Partial<BffConfig>;
  /** Merchant pages allowed to embed the widget besides the demo storefront's own origin. */
  extraAllowedOrigins?: readonly string[];
  /** The storefront's `POST /checkout` limit per client address per minute (default 20). */
  demoCheckoutRateLimitPerMinute?: number;
  /** How long a stop waits for each server's requests under way (default 10 s). */
  stopGraceMs?: number;
}

export interface Stack {
  /** The start-up line about the sandbox clock when it runs ahead of real time, else null. */
  clockNotice: string | null;
  sandboxUrl: string;
  bffUrl: string;
  demoUrl: string;
  merchantSecret: string;
  /**
   * Stops the storefront, then the BFF, then the sandbox: each server refuses new requests
   * and gives those under way `stopGraceMs` before its app closes, stores last. Once.
   */
  close(): Promise<void>;
}

/** Starts sandbox, BFF and storefront, wired to one another, on loopback. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const host = opts.host ?? '127.0.0.1';
  const publicHost = opts.publicHost ?? host;
  const ports = opts.ports ?? { sandbox: 0, bff: 0, demo: 0 };
  const merchantSecret = opts.merchantSecret ?? 'sk_test_local';
  // The storefront and the BFF share the events signing secret: a fresh one each start
  // unless BFF_EVENTS_SECRET names one (the listen command then verifies with it too).
  const eventsSecret = opts.eventsSecret ?? `whsec_${randomBytes(32).toString('base64')}`;
  const grace = opts.stopGraceMs ?? 10_000;
  // Run last registered first: each app's server stops before the app, the stores last.
  const closers: (() => Promise<void>)[] = [];
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      for (const c of [...closers].reverse()) await c();
    })());
  try {
    const sandboxServer = await bind(
      { name: 'sandbox', portVar: 'SANDBOX_PORT' },
      ports.sandbox,
      host,
      publicHost,
    );
    closers.push(() => sandboxServer.close(grace));
    const sandboxDb = await openDb<SandboxDb>({
      url: join(opts.dataDir, 'sandbox.sqlite'),
      durability: 'process',
    });
    closers.push(() => sandboxDb.close());
    const sandbox = await createSandboxApp({
      db: sandboxDb.db,
      publicUrl: sandboxServer.url,
      logger: opts.loggers?.sandbox ?? silentLogger,
    });
    closers.push(async () => {
      await sandboxServer.close(grace);
      await sandbox.close();
    });
    sandboxServer.serve((req) => sandbox.app.fetch(req));

    // A pay under way is answered, however long the gateway takes (see BFF_STOP_GRACE_MS).
    const bffServer = await bind(
      { name: 'BFF', portVar: 'BFF_PORT', waitForRunning: true },
      ports.bff,
      host,
      publicHost,
    );
    closers.push(() => bffServer.close(grace));
    const demoServer = await bind(
      { name: 'demo', portVar: 'DEMO_PORT' },
      ports.demo,
      host,
      publicHost,
    );
    closers.push(() => demoServer.close(grace));

    // The merchant's own gateway client (the demo's plan); the BFF has its own, from its env.
    const gateway = createGatewayClient({
      gatewayBaseUrl: sandboxServer.url,
      integrationBaseUrl: sandboxServer.url,
      credentials: {
        gateway: { userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password },
      },
    });
    // The BFF as `npm run bff` starts it, from an environment wired to this stack: the
    // sandbox's URLs and default client, the storefront's origin, the register at start.
    const bffConfig = defaultBffConfig({
      publicUrl: bffServer.url,
      merchantSecret,
      staticDir: opts.distDir ?? DIST_DIR,
      // The storefront fulfils its orders from the BFF's signed events.
      eventsUrl: `${demoServer.url}/webhooks/checkout-events`,
      eventsSecret,
      ...opts.bffConfig,
      allowedOrigins: [demoServer.url, ...(opts.extraAllowedOrigins ?? [])],
    });
    const bffEnv: BffEnv = {
      warnings: [],
      port: 0,
      host,
      databaseUrl: join(opts.dataDir, 'bff.sqlite'),
      databasePoolSize: 10,
      databaseNamedStatements: true,
      sqliteSync: 'full',
      logLevel: 'info',
      gateway: {
        gatewayBaseUrl: sandboxServer.url,
        integrationBaseUrl: sandboxServer.url,
        timeoutMs: 30_000,
        credentials: {
          gateway: { userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password },
        },
      },
      config: bffConfig,
      // The sandbox notifies the BFF (Authorized, Canceled, …) at its webhook receiver.
      webhookRegistration: { enabled: true, accountNumber: DEFAULT_CLIENT.accountNumber },
      // Payments that timed out after sending are settled from the sandbox's ledger.
      resolver: {
        intervalMs: 60_000,
        accountNumber: DEFAULT_CLIENT.accountNumber,
        strandedAfterMs: 2 * 30_000 + 60_000,
      },
      stopGraceMs: grace,
    };
    const bff = await startBff(bffEnv, {
      logger: opts.loggers?.bff ?? silentLogger,
      serve: (fetch) => {
        bffServer.serve(fetch);
        return (graceMs) => bffServer.close(graceMs);
      },
      awaitRegistration: true,
    });
    // Its server first, then its maintenance round, inbox and store.
    closers.push(() => bff.close());

    // The storefront's monthly plan lives in the gateway: found by name, or created now.
    await ensureDemoPlan(gateway);
    // The subscription pages share the storefront's header (cart count) and order pages.
    const consoleSections: ConsoleSection[] = [];
    const demo = createDemoApp({
      ...(opts.demoCheckoutRateLimitPerMinute
        ? { checkoutRateLimitPerMinute: opts.demoCheckoutRateLimitPerMinute }
        : {}),
      publicUrl: demoServer.url,
      bffUrl: bffServer.url,
      // The sandbox's bank pages (plain HTTP on loopback).
      issuerOrigins: [new URL(sandboxServer.url).origin],
      merchantSecret,
      eventsSecret,
      distDir: opts.distDir ?? DIST_DIR,
      logger: opts.loggers?.demo ?? silentLogger,
      consoleSections,
    });
    const subscriptions = subscriptionDemo({
      planId: () => ensureDemoPlan(gateway),
      publicUrl: demoServer.url,
      bffUrl: bffServer.url,
      merchantSecret,
      distDir: opts.distDir ?? DIST_DIR,
      logger: opts.loggers?.demo ?? silentLogger,
      cartCount: demo.cartCountOf,
      orders: demo.orders,
    });
    consoleSections.push(subscriptions.section);
    demo.app.route('/', subscriptions.routes);
    demoServer.serve((req) => demo.app.fetch(req));
    // The storefront stops first: its requests under way may be calling the BFF.
    closers.push(() => demoServer.close(grace));

    return {
      clockNotice: clockOffsetNotice(sandbox.ctx.clock.offset, sandbox.ctx.clock.now()),
      sandboxUrl: sandboxServer.url,
      bffUrl: bffServer.url,
      demoUrl: demoServer.url,
      merchantSecret,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

const TEST_CARDS: [string, string][] = [
  ['4000 0000 0000 2701', 'Visa, débito 3DS sem desafio: aprovado'],
  ['4000 0000 0000 2503', 'Visa, débito com desafio: OTP 1234 aprova'],
  ['4000 0000 0000 2370', 'Visa, desafio que sempre falha'],
  ['4000 0000 0000 2925', 'Visa, falha 3DS sem desafio'],
  ['5200 0000 0000 2235', 'Mastercard, aprovado'],
  ['5200 0000 0000 2151', 'Mastercard, desafio (OTP 1234)'],
  ['6505 2900 0000 2000', 'Elo, aprovado'],
  ['6062 8256 2425 4001', 'Hipercard, aprovado'],
  ['3400 000000 02708', 'Amex, aprovado (CVV de 4 dígitos)'],
  ['4000 0000 0000 0002', 'Visa, recusado (05)'],
  ['4000 0000 0000 9995', 'Visa, recusado: saldo insuficiente (51)'],
  ['4000 0000 0000 0069', 'Visa, recusado: cartão vencido (54)'],
  ['4000 0000 0000 0127', 'Visa, recusado: CVV incorreto (N7)'],
  ['4000 0000 0000 0119', 'Visa, erro interno do gateway (500)'],
];

/**
 * `npm start`'s settings from the environment. The BFF's documented variables keep their meaning
 * (validated by the BFF's own reader): `BFF_ALLOWED_ORIGINS` adds merchant pages to the demo's
 * own origin, `BFF_MERCHANT_SECRET` and `BFF_WEBHOOK_USER`/`_PASSWORD` replace the local
 * defaults, so a merchant can point their own page at the demo BFF. Quiet by default: warnings
 * and errors only (`LOG_LEVEL=info` or `debug` adds events and one line per request).
 */
export function stackSettingsFromEnv(env: NodeJS.ProcessEnv): {
  ports: { sandbox: number; bff: number; demo: number };
  merchantSecret: string;
  extraAllowedOrigins: string[];
  webhook: { user: string; password: string };
  logLevel: BffEnv['logLevel'];
  stopGraceMs: number;
  eventsSecret?: string;
} {
  const bff = readBffEnv({ LOG_LEVEL: 'warn', ...env });
  return {
    ports: {
      sandbox: readPort(env, 'SANDBOX_PORT', 4010),
      bff: readPort(env, 'BFF_PORT', 3001),
      demo: readPort(env, 'DEMO_PORT', 3000),
    },
    merchantSecret: bff.config.merchantSecret,
    extraAllowedOrigins: env.BFF_ALLOWED_ORIGINS ? [...bff.config.allowedOrigins] : [],
    webhook: bff.config.webhook,
    logLevel: bff.logLevel,
    stopGraceMs: bff.stopGraceMs,
    ...(bff.config.eventsSecret ? { eventsSecret: bff.config.eventsSecret } : {}),
  };
}

async function main(): Promise<void> {
  const settings = stackSettingsFromEnv(process.env);
  if (ensureWidgetBuilt()) console.log('widget built into dist/');
  const level = settings.logLevel;
  const stack = await startStack({
    dataDir: resolve(ROOT, 'data'),
    ports: settings.ports,
    publicHost: 'localhost',
    merchantSecret: settings.merchantSecret,
    ...(settings.eventsSecret ? { eventsSecret: settings.eventsSecret } : {}),
    extraAllowedOrigins: settings.extraAllowedOrigins,
    bffConfig: { webhook: settings.webhook },
    stopGraceMs: settings.stopGraceMs,
    loggers: {
      sandbox: createLogger({ level, name: 'sandbox' }),
      bff: createLogger({ level, name: 'bff' }),
      demo: createLogger({ level, name: 'demo' }),
    },
  });
  const origins = [stack.demoUrl, ...settings.extraAllowedOrigins].join(', ');
  console.log(`
  Loja (demo)   ${stack.demoUrl}
  BFF           ${stack.bffUrl}   (origens permitidas: ${origins})
  Sandbox       ${stack.sandboxUrl}   (userName ${DEFAULT_CLIENT.userName}, password ${DEFAULT_CLIENT.password})

  Cartões de teste (qualquer validade futura, qualquer CVV; OTP dos desafios: 1234):
${TEST_CARDS.map(([n, d]) => `    ${n.padEnd(21)} ${d}`).join('\n')}

  Só avisos e erros daqui em diante (LOG_LEVEL=debug mostra cada requisição).
`);
  if (stack.clockNotice) console.log(stack.clockNotice);
  // npm passes a Ctrl+C on too: the second signal finds the stop under way.
  const stop = () => {
    void stack.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
