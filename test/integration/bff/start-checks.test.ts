import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stubStaticDir } from '../../support/bff-process';
import { freePort } from '../../support/child-server';

/**
 * `npm run bff` (server/bff/main.ts) refuses, at start, configuration it cannot run with: it
 * exits 1 with one line naming the variable and the rule, never a bare library error.
 */
const dir = mkdtempSync(join(tmpdir(), 'bff-start-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STATIC = stubStaticDir(dir);

/** Runs the BFF with `env` until it exits (or 15 s pass: it started, which these must not). */
async function runBff(
  env: Record<string, string>,
): Promise<{ status: number | null; out: string }> {
  const port = String(await freePort());
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/bff/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BFF_PORT: port,
      BFF_DB: join(dir, 'bff.sqlite'),
      BFF_STATIC_DIR: STATIC,
      BFF_RESOLVE_INTERVAL_MS: '0',
      ...env,
    },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('npm run bff refuses at start', () => {
  it('a BFF_STATIC_DIR that is missing or lacks the widget', async () => {
    const missing = await runBff({ BFF_STATIC_DIR: join(dir, 'no-such-dist') });
    expect(missing.status, missing.out).toBe(1);
    expect(missing.out).toContain(`BFF_STATIC_DIR: ${join(dir, 'no-such-dist')}`);
    expect(missing.out).toMatch(/npm run build/);
    const empty = join(dir, 'empty-dist');
    mkdirSync(empty);
    const bare = await runBff({ BFF_STATIC_DIR: empty });
    expect(bare.status, bare.out).toBe(1);
    expect(bare.out).toContain('widget/card-checkout.js');
  }, 60_000);
});
