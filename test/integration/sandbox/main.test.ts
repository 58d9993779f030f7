import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startChildServer, withPortTaken } from '../../support/child-server';

// `npm run sandbox` is `node scripts/sandbox.mjs`: a bundle of server/sandbox/main.ts, rebuilt
// when a source is newer, then served on SANDBOX_PORT.
const BUNDLE = 'dist/server/sandbox.mjs';
const dir = mkdtempSync(join(tmpdir(), 'sandbox-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runSandbox() {
  const port = await freePort();
  const child = await startChildServer(
    'scripts/sandbox.mjs',
    {
      SANDBOX_PORT: String(port),
      SANDBOX_DB: join(dir, 'sandbox.sqlite'),
      LOG_LEVEL: 'silent',
    },
    ['sandbox ready', 'accountNumber='],
  );
  return { url: `http://127.0.0.1:${port}`, ...child };
}

describe('npm run sandbox (scripts/sandbox.mjs)', () => {
  it('rebuilds a stale bundle, serves both APIs with the default client, stops on SIGTERM', async () => {
    // Older than every source: must be rebuilt (also when there is none yet).
    try {
      utimesSync(BUNDLE, new Date(0), new Date(0));
    } catch {
      /* no bundle yet */
    }
    const sb = await runSandbox();
    try {
      expect(statSync(BUNDLE).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
      expect(sb.out()).toContain('userName=sandbox password=sandbox accountNumber=1001');
      const res = await fetch(`${sb.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'sandbox', password: 'sandbox' }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accessToken: expect.any(String) });
    } finally {
      expect(await sb.stop()).toBe(0);
    }
  });

  it('on SIGTERM, answers the request under way before its store closes, then exits 0', async () => {
    const sb = await runSandbox();
    let code: number | null | undefined;
    try {
      // Held 2 s, then answered (401: no token).
      const fault = await fetch(`${sb.url}/__sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'GET', path: '/v1/payments/*', count: 1, latencyMs: 2000 }),
      });
      expect(fault.status).toBe(201);
      const held = fetch(`${sb.url}/v1/payments/pay_held`).then(
        (res) => res.status,
        (err: Error) => `failed: ${(err.cause as Error | undefined)?.message ?? err.message}`,
      );
      const faults = async () => {
        const res = await fetch(`${sb.url}/__sandbox/faults`);
        return ((await res.json()) as { items: unknown[] }).items.length;
      };
      await expect.poll(faults, { timeout: 10_000 }).toBe(0);
      const stopped = sb.stop();
      expect(await held).toBe(401);
      code = await stopped;
      expect(code).toBe(0);
    } finally {
      if (code === undefined) await sb.stop();
    }
  });

  it('a fresh bundle is reused as is', async () => {
    const before = statSync(BUNDLE).mtimeMs;
    const sb = await runSandbox();
    expect(await sb.stop()).toBe(0);
    expect(statSync(BUNDLE).mtimeMs).toBe(before);
  });

  it('a port in use stops it with one line naming SANDBOX_PORT, not a stack trace', async () => {
    const run = await withPortTaken(async (port) => ({
      port,
      ...spawnSync(process.execPath, ['scripts/sandbox.mjs'], {
        env: {
          PATH: process.env.PATH ?? '',
          SANDBOX_PORT: String(port),
          SANDBOX_DB: join(dir, 'taken.sqlite'),
          LOG_LEVEL: 'silent',
        },
        encoding: 'utf8',
        timeout: 15_000,
      }),
    }));
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`sandbox: SANDBOX_PORT=${run.port} is in use on 127.0.0.1`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout).not.toContain('sandbox ready');
  });
});
