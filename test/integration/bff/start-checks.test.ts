import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stubStaticDir } from '../../support/bff-process';
import { freePort, withPortTaken } from '../../support/child-server';
import { startStack } from '../../../scripts/start';

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

  it('a store that cannot be opened, naming BFF_DB and its path', async () => {
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'not a database: '.repeat(40));
    const garbage = await runBff({ BFF_DB: notDb });
    expect(garbage.status, garbage.out).toBe(1);
    expect(garbage.out).toContain(`BFF_DB: cannot open ${notDb}`);
    expect(garbage.out).toContain('file is not a database');
  }, 60_000);

  it('a port in use or a host name that is not this machine, naming the variable', async () => {
    const taken = await withPortTaken((port) => runBff({ BFF_PORT: String(port) }));
    expect(taken.status, taken.out).toBe(1);
    expect(taken.out).toMatch(/BFF: BFF_PORT=\d+ is in use on 127\.0\.0\.1/);
    const host = await runBff({ BFF_HOST: 'no.such.host.invalid' });
    expect(host.status, host.out).toBe(1);
    expect(host.out).toContain(
      'BFF: BFF_HOST=no.such.host.invalid is not an address of this machine',
    );
  }, 60_000);
});

describe('npm start refuses at start', () => {
  it('a port in use, naming the app and the variable', async () => {
    const data = mkdtempSync(join(dir, 'stack-'));
    await withPortTaken(async (port) => {
      await expect(
        startStack({ dataDir: data, ports: { sandbox: 0, bff: port, demo: 0 }, distDir: STATIC }),
      ).rejects.toThrow(new RegExp(`BFF: BFF_PORT=${port} is in use`));
      await expect(
        startStack({ dataDir: data, ports: { sandbox: port, bff: 0, demo: 0 }, distDir: STATIC }),
      ).rejects.toThrow(new RegExp(`sandbox: SANDBOX_PORT=${port} is in use`));
    });
  }, 60_000);
});
