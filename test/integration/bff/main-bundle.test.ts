import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startChildServer } from '../../support/child-server';

// `npm run bff` is `node scripts/bff.mjs`: a bundle of server/bff/main.ts, rebuilt when a
// source is newer, then served on BFF_PORT with the BFF's documented environment.
const BUNDLE = 'dist/server/bff.mjs';
const dir = mkdtempSync(join(tmpdir(), 'bff-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runBff() {
  const port = await freePort();
  const child = await startChildServer(
    'scripts/bff.mjs',
    {
      NODE_ENV: 'development',
      BFF_PORT: String(port),
      BFF_PUBLIC_URL: `http://127.0.0.1:${port}`,
      BFF_DB: join(dir, 'bff.sqlite'),
      // Nothing listens there: the BFF starts anyway and says so in /readyz.
      GATEWAY_BASE_URL: 'http://127.0.0.1:9',
      INTEGRATION_BASE_URL: 'http://127.0.0.1:9',
      BFF_RESOLVE_INTERVAL_MS: '0',
      LOG_LEVEL: 'silent',
    },
    ['BFF ready'],
  );
  return { url: `http://127.0.0.1:${port}`, ...child };
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

  it('a fresh bundle is reused as is', async () => {
    const before = statSync(BUNDLE).mtimeMs;
    const bff = await runBff();
    expect(await bff.stop()).toBe(0);
    expect(statSync(BUNDLE).mtimeMs).toBe(before);
  });
});
