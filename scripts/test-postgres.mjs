// `npm run test:postgres`: the BFF integration tests again, on PostgreSQL instead of SQLite.
//
// With BFF_TEST_DATABASE_URL set, they run against that server. Otherwise this starts a
// throwaway PostgreSQL cluster (initdb from PATH or Debian's /usr/lib/postgresql/<v>/bin) on a
// free loopback port in a temporary directory, runs the tests, then stops and removes it.
// Without PostgreSQL installed it says so and exits 0, unless REQUIRE_POSTGRES=1 (CI sets it
// after installing Debian's postgresql), where that is an error.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `npm run test:postgres -- <files>` runs only those (default: every BFF integration test).
const FILES = process.argv.slice(2);
const TESTS = [
  'vitest',
  'run',
  '--project',
  'integration',
  ...(FILES.length ? FILES : ['test/integration/bff']),
];

function findBin(name) {
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin', name);
    if (existsSync(bin)) return bin;
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function runTests(url) {
  return new Promise((resolve) => {
    const child = spawn('npx', TESTS, {
      stdio: 'inherit',
      env: { ...process.env, BFF_TEST_DATABASE_URL: url },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** PostgreSQL refuses to run as root: then the cluster belongs to the `postgres` user. */
function asServerUser(cmd, args) {
  if (process.getuid?.() !== 0) return [cmd, args];
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) {
    throw new Error('running as root and there is no postgres user to own the test cluster');
  }
  return ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
}

function run(cmd, args) {
  const [c, a] = asServerUser(cmd, args);
  const res = spawnSync(c, a, { encoding: 'utf8' });
  if (res.status !== 0) {
    throw new Error(`${cmd} ${args[0] ?? ''} failed:\n${res.stdout}${res.stderr}`);
  }
}

async function main() {
  if (process.env.BFF_TEST_DATABASE_URL) {
    process.exit(await runTests(process.env.BFF_TEST_DATABASE_URL));
  }
  const initdb = findBin('initdb');
  const pgCtl = findBin('pg_ctl');
  if (!initdb || !pgCtl) {
    const msg = 'PostgreSQL (initdb, pg_ctl) not found: the BFF tests on PostgreSQL did not run';
    if (process.env.REQUIRE_POSTGRES === '1') {
      console.error(`${msg} (REQUIRE_POSTGRES=1)`);
      process.exit(1);
    }
    console.log(`${msg}. Install postgresql, or set BFF_TEST_DATABASE_URL=postgres://…`);
    process.exit(0);
  }
  const dir = mkdtempSync(join(tmpdir(), 'card-checkout-pg-'));
  chmodSync(dir, 0o777); // the postgres user writes here when we run as root
  const data = join(dir, 'data');
  const port = await freePort();
  let started = false;
  const stop = () => {
    if (started) {
      try {
        run(pgCtl, ['stop', '-D', data, '-m', 'fast', '-s']);
      } catch (err) {
        console.error(err.message);
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });
  let code = 1;
  try {
    run(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    run(pgCtl, [
      'start',
      '-D',
      data,
      '-w',
      '-s',
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
    ]);
    started = true;
    console.log(`== PostgreSQL test cluster on 127.0.0.1:${port}`);
    code = await runTests(`postgres://postgres@127.0.0.1:${port}/postgres`);
  } catch (err) {
    console.error(err.message);
  } finally {
    stop();
  }
  process.exit(code);
}

await main();
