import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stubStaticDir } from '../../support/bff-process';
import { freePort, startChildServer } from '../../support/child-server';

// `npm run bff` is `node scripts/bff.mjs`: a bundle of server/bff/main.ts, rebuilt when a
// source is newer, then served on BFF_PORT with the BFF's documented environment.
const BUNDLE = 'dist/server/bff.mjs';
const dir = mkdtempSync(join(tmpdir(), 'bff-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bffEnv(port: number): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'development',
    BFF_PORT: String(port),
    BFF_PUBLIC_URL: `http://127.0.0.1:${port}`,
    BFF_DB: join(dir, 'bff.sqlite'),
    BFF_STATIC_DIR: stubStaticDir(dir),
    // Nothing listens there: the BFF starts anyway and says so in /readyz.
    GATEWAY_BASE_URL: 'http://127.0.0.1:9',
    INTEGRATION_BASE_URL: 'http://127.0.0.1:9',
    BFF_RESOLVE_INTERVAL_MS: '0',
    LOG_LEVEL: 'silent',
  };
}

async function runBff() {
  const port = await freePort();
  const child = await startChildServer('scripts/bff.mjs', bffEnv(port), ['BFF ready']);
  return { url: `http://127.0.0.1:${port}`, ...child };
}

/** True when nothing accepts connections on the port any more. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/**
 * `npm run bff` as a container's command or a supervisor runs it: the signal goes to npm's
 * process only. Resolves with npm's exit code (or signal) and whether the port is free then.
 */
async function npmRunBffStoppedBy(signal: 'SIGTERM' | 'SIGINT') {
  const port = await freePort();
  // Its own process group, so whatever it leaves running can be killed after the test.
  const npm = spawn('npm', ['run', 'bff'], {
    env: { ...process.env, ...bffEnv(port), npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  npm.stdout.on('data', (c: Buffer) => (out += c.toString()));
  npm.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<string>((r) => npm.once('exit', (code, sig) => r(`${code ?? sig}`)));
  try {
    await expect.poll(() => out, { timeout: 30_000 }).toContain('BFF ready');
    npm.kill(signal);
    const exit = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r('still running'), 15_000)),
    ]);
    return { exit, portFree: await portFree(port) };
  } finally {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      /* the group is gone: nothing was left running */
    }
  }
}

describe('npm run bff (scripts/bff.mjs)', () => {
  it('rebuilds a stale bundle, serves the BFF, stops on SIGTERM', async () => {
    try {
      utimesSync(BUNDLE, new Date(0), new Date(0));
    } catch {
      /* no bundle yet */
    }
    const bff = await runBff();
    try {
      expect(statSync(BUNDLE).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
      expect(bff.out()).toContain(`BFF ready at ${bff.url} (store: sqlite)`);
      expect((await fetch(`${bff.url}/healthz`)).status).toBe(200);
      const refused = await fetch(`${bff.url}/v1/checkout-sessions`, { method: 'POST' });
      expect(refused.status).toBe(401);
    } finally {
      expect(await bff.stop()).toBe(0);
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'run through npm, stops on %s to npm alone: npm exits 0, the port is free',
    async (signal) => {
      expect(await npmRunBffStoppedBy(signal)).toEqual({ exit: '0', portFree: true });
    },
  );

  it('a fresh bundle is reused as is', async () => {
    const before = statSync(BUNDLE).mtimeMs;
    const bff = await runBff();
    expect(await bff.stop()).toBe(0);
    expect(statSync(BUNDLE).mtimeMs).toBe(before);
  });
});
