// `npm run test:postgres`: the BFF integration tests again, on PostgreSQL instead of SQLite.
//
// With BFF_TEST_DATABASE_URL set, they run against that server. Otherwise this starts a
// throwaway PostgreSQL cluster (scripts/pg-cluster.mjs: initdb from PATH or Debian's
// /usr/lib/postgresql/<v>/bin) on a free loopback port in a temporary directory, runs the
// tests, then stops and removes it. Without PostgreSQL installed it says so and exits 0, unless
// REQUIRE_POSTGRES=1 (CI sets it after installing Debian's postgresql), where that is an error.
// SIGINT, SIGTERM (a CI runner, `timeout`) and SIGHUP stop the tests and the cluster, remove its
// directory, and exit 128 + the signal's number.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { havePostgres, startPgCluster } from './pg-cluster.mjs';

// `npm run test:postgres -- <files>` runs only those (default: every BFF integration test).
const FILES = process.argv.slice(2);
const TESTS = [
  'vitest',
  'run',
  '--project',
  'integration',
  ...(FILES.length ? FILES : ['test/integration/bff']),
];

/** The test run under way, for a stop signal to pass on. */
let tests = null;

function runTests(url) {
  return new Promise((resolve) => {
    tests = spawn('npx', TESTS, {
      stdio: 'inherit',
      env: { ...process.env, BFF_TEST_DATABASE_URL: url },
    });
    tests.on('exit', (code, signal) => {
      tests = null;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main() {
  if (process.env.BFF_TEST_DATABASE_URL) {
    process.exit(await runTests(process.env.BFF_TEST_DATABASE_URL));
  }
  if (!havePostgres()) {
    const msg = 'PostgreSQL (initdb, pg_ctl) not found: the BFF tests on PostgreSQL did not run';
    if (process.env.REQUIRE_POSTGRES === '1') {
      console.error(`${msg} (REQUIRE_POSTGRES=1)`);
      process.exit(1);
    }
    console.log(`${msg}. Install postgresql, or set BFF_TEST_DATABASE_URL=postgres://…`);
    process.exit(0);
  }
  let cluster = null;
  let starting = false;
  let stopping = null;
  const stop = (signal) => {
    stopping = signal;
    tests?.kill(signal);
    if (starting) return; // the cluster's directory exists already: stop once it has started
    cluster?.stop();
    process.exit(128 + constants.signals[signal]);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);
  let code = 1;
  try {
    starting = true;
    try {
      cluster = await startPgCluster();
    } finally {
      starting = false;
    }
    if (stopping) stop(stopping);
    console.log(`== PostgreSQL test cluster on 127.0.0.1:${cluster.port}`);
    code = await runTests(cluster.url);
  } catch (err) {
    console.error(err.message);
  } finally {
    cluster?.stop();
  }
  process.exit(stopping ? 128 + constants.signals[stopping] : code);
}

await main();
