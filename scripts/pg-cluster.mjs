// A throwaway PostgreSQL cluster on a free loopback port in a temporary directory, for
// `npm run test:postgres` and the benchmarks: initdb from PATH or Debian's
// /usr/lib/postgresql/<v>/bin, trust authentication, fsync and full-page writes off (test
// data; nothing survives the run).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** Whether initdb and pg_ctl are installed. */
export function havePostgres() {
  return Boolean(findBin('initdb') && findBin('pg_ctl'));
}

/**
 * Creates and starts a cluster; `stop()` stops it (fast shutdown) and removes its directory,
 * and may be called more than once. `extraOptions` are appended to the server's command line.
 */
export async function startPgCluster({ extraOptions = '' } = {}) {
  const initdb = findBin('initdb');
  const pgCtl = findBin('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('PostgreSQL (initdb, pg_ctl) not found');
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
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off ${extraOptions}`,
    ]);
    started = true;
  } catch (err) {
    stop();
    throw err;
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** The postmaster's process id (first line of postmaster.pid). */
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop,
  };
}
