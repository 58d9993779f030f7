import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { havePostgres } from '../../../scripts/pg-cluster.mjs';
import { startChildServer } from '../../support/child-server';

// `npm run test:postgres` (scripts/test-postgres.mjs) runs `npx vitest …` against a throwaway
// cluster. Here `npx` is a stand-in on PATH that says it runs and sleeps, and TMPDIR is ours, so
// whatever the script leaves behind is in sight.
const root = mkdtempSync(join(tmpdir(), 'test-postgres-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fakeNpx(name: string) {
  const dir = join(root, name);
  const bin = join(dir, 'bin');
  const tmp = join(dir, 'tmp');
  for (const d of [dir, bin, tmp]) {
    spawnSync('mkdir', ['-p', d]);
    chmodSync(d, 0o755); // the postgres user (when we run as root) goes through TMPDIR
  }
  const pidFile = join(dir, 'npx.pid');
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\necho $$ > ${pidFile}\necho "fake tests running $BFF_TEST_DATABASE_URL"\nexec sleep 60\n`,
    { mode: 0o755 },
  );
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    TMPDIR: tmp,
    BFF_TEST_DATABASE_URL: undefined,
    REQUIRE_POSTGRES: undefined,
  };
  return { env, tmp, pidFile };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm run test:postgres: a stop signal', () => {
  if (havePostgres()) {
    it.each([
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const)(
      '%s stops the tests and the cluster, removes its directory, exits %i',
      async (signal, code) => {
        const { env, tmp, pidFile } = fakeNpx(signal);
        const child = await startChildServer('scripts/test-postgres.mjs', env, [
          '== PostgreSQL test cluster on 127.0.0.1:',
          'fake tests running postgres://',
        ]);
        const npxPid = Number(readFileSync(pidFile, 'utf8'));
        const [clusterDir] = readdirSync(tmp).filter((n) => n.startsWith('card-checkout-pg-'));
        const pidPath = join(tmp, clusterDir ?? 'none', 'data', 'postmaster.pid');
        const postmaster = Number(readFileSync(pidPath, 'utf8').split('\n')[0]);
        try {
          expect(alive(postmaster)).toBe(true);
          expect(await child.stop(signal)).toBe(code);
          await expect.poll(() => alive(postmaster), { timeout: 10_000 }).toBe(false);
          await expect.poll(() => alive(npxPid), { timeout: 10_000 }).toBe(false);
          expect(readdirSync(tmp)).toEqual([]);
        } finally {
          // What a failing run left behind: SIGINT is PostgreSQL's fast shutdown.
          if (alive(npxPid)) process.kill(npxPid, 'SIGKILL');
          if (alive(postmaster)) process.kill(postmaster, 'SIGINT');
          await child.stop();
          await expect.poll(() => alive(postmaster), { timeout: 10_000 }).toBe(false);
        }
      },
    );
  } else {
    // Without PostgreSQL the script says so and exits 0 (what this machine can check).
    it('without PostgreSQL installed, the script says so and exits 0', async () => {
      console.warn('PostgreSQL (initdb, pg_ctl) not found: the stop-signal tests did not run');
      const { env } = fakeNpx('none');
      const res = spawnSync(process.execPath, ['scripts/test-postgres.mjs'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      expect(res.status).toBe(0);
      expect(res.stdout).toContain('PostgreSQL (initdb, pg_ctl) not found');
    });
  }
});
