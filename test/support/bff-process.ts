import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import { MERCHANT_ORIGIN, MERCHANT_SECRET } from './bff';

/**
 * The BFF as its own operating-system process (`server/bff/main.ts`, configured by the
 * environment only), so a test can kill it with SIGKILL mid-call and start it again over the
 * same store: SQLite in a temporary file, or a fresh PostgreSQL schema when
 * `BFF_TEST_DATABASE_URL` is set (`npm run test:postgres`).
 */
export interface BffProcess {
  url: string;
  /** Starts the process (again) and resolves once `/healthz` answers. */
  start(): Promise<void>;
  /** `kill -9`: no shutdown hook runs. */
  kill(): Promise<void>;
  /**
   * SIGTERM, and waits for the process to exit (its shutdown hooks, a `--cpu-prof` write): its
   * exit code (null when it was not running, or a signal ended it).
   */
  terminate(): Promise<number | null>;
  /** What the process wrote (JSON log lines), for a failing test's message. */
  output(): string;
  /** The operating-system process id while it runs (for /proc readings in benchmarks). */
  pid(): number | undefined;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * A build folder in `dir` holding only the widget's entry file, for `BFF_STATIC_DIR`: the BFF
 * refuses to start without one, and a test's checkout may not be built (`npm run build`).
 */
export function stubStaticDir(dir: string): string {
  const root = join(dir, 'dist');
  mkdirSync(join(root, 'widget'), { recursive: true });
  writeFileSync(join(root, 'widget', 'card-checkout.js'), '// the widget (a test stub)\n');
  return root;
}

/** The store settings of a BFF process: a SQLite file in `dir`, or a fresh PostgreSQL schema. */
export async function storeEnv(dir: string): Promise<Record<string, string>> {
  const url = process.env.BFF_TEST_DATABASE_URL;
  if (!url) return { BFF_DB: join(dir, 'bff.sqlite') };
  const { default: pg } = await import('pg');
  const schema = `bff_proc_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return { DATABASE_URL: u.toString() };
}

export async function bffProcess(opts: {
  sandboxUrl: string;
  /** Extra environment (e.g. GATEWAY_TIMEOUT_MS, BFF_STRANDED_MARGIN_MS). */
  env?: Record<string, string>;
  /** The store (`storeEnv`) to share with other processes; default: one of its own. */
  store?: Record<string, string>;
  /**
   * Run it as `npm run bff` does (`scripts/bff.mjs`: the esbuild bundle, rebuilt when a
   * source is newer) instead of the sources through tsx's loader.
   */
  bundled?: boolean;
  /** Options for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** The checkout whose BFF runs (another worktree, to compare side by side); this one's by default. */
  cwd?: string;
}): Promise<BffProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bff-proc-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    BFF_PORT: String(port),
    BFF_HOST: '127.0.0.1',
    BFF_PUBLIC_URL: url,
    BFF_MERCHANT_SECRET: MERCHANT_SECRET,
    BFF_ALLOWED_ORIGINS: MERCHANT_ORIGIN,
    GATEWAY_BASE_URL: opts.sandboxUrl,
    INTEGRATION_BASE_URL: opts.sandboxUrl,
    GATEWAY_USERNAME: DEFAULT_CLIENT.userName,
    GATEWAY_PASSWORD: DEFAULT_CLIENT.password,
    BFF_WEBHOOK_ACCOUNT: DEFAULT_CLIENT.accountNumber,
    BFF_PAY_RATE_LIMIT: '1000',
    BFF_STATIC_DIR: stubStaticDir(dir),
    LOG_LEVEL: 'info',
    ...(opts.store ?? (await storeEnv(dir))),
    ...opts.env,
  };
  let child: ChildProcess | null = null;
  let out = '';

  const healthy = async (): Promise<boolean> => {
    try {
      return (await fetch(`${url}/healthz`)).status === 200;
    } catch {
      return false;
    }
  };

  const kill = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  };

  const terminate = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return null;
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    const late = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(late);
    return code;
  };

  return {
    url,
    async start() {
      // One process (no tsx CLI wrapper), so SIGKILL reaches the BFF itself.
      const script = opts.bundled ? ['scripts/bff.mjs'] : ['--import', 'tsx', 'server/bff/main.ts'];
      const args = [...(opts.nodeArgs ?? []), ...script];
      const proc = spawn(process.execPath, args, {
        env,
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      proc.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
      proc.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const end = Date.now() + 60_000;
      while (!(await healthy())) {
        if (proc.exitCode !== null) throw new Error(`BFF exited at start:\n${out}`);
        if (Date.now() > end) throw new Error(`BFF not healthy in time:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill,
    terminate,
    output: () => out,
    pid: () => (child && child.exitCode === null ? child.pid : undefined),
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
