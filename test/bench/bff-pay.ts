/**
 * The BFF pay path end to end (issue 13 §2, §3): `npx tsx test/bench/bff-pay.ts`.
 *
 * Every server is its own process on loopback: the sandbox as `npm run sandbox` starts it,
 * BFF instances as `npm run bff` does (the esbuild bundle, LOG_LEVEL=warn, no rate limit in
 * the way), PostgreSQL as a throwaway cluster (scripts/pg-cluster.mjs, as `npm run
 * test:postgres` but with fsync and full-page writes on, as in production), a fresh database per
 * configuration. Every store is durable as shipped: SQLite with `BFF_SQLITE_SYNC=full` (the
 * default), PostgreSQL with fsync. In order:
 *
 *   sandbox direct   `POST /v1/payments` (credit, 1 installment, encryptedCard) with a Bearer
 *                    token, the body and headers the BFF's gateway client sends;
 *   Hono hello-world, Hono pass-through (lib/baseline-server.ts: the same pay forwarded to
 *                    the sandbox by a Hono app with no store: the floor under any BFF);
 *   BFF×1 SQLite, BFF×1 SQLite normal (`BFF_SQLITE_SYNC=normal`: what durability costs),
 *   BFF×1 PostgreSQL, BFF×3 PostgreSQL (one store; this load generator sends to the
 *                    instances in turn, no balancer process in between).
 *
 * One pay = what the shopper's frame does once the merchant has created the session:
 * `POST /checkout/api/pay` with the session's client secret, an Idempotency-Key and a credit
 * body whose card (4000000000002701, frictionless approval) is encrypted with the gateway key.
 * Sessions are created (and timed, as their own figure) and cards encrypted before each timed
 * phase, so neither counts in it; ciphertexts live 15 minutes at the sandbox. Each
 * configuration runs a warm-up at concurrency 32, then 32 and then 1, measured.
 *
 * CPU per pay: utime + stime of /proc/<pid>/stat around the timed phase, for the BFF
 * processes, the sandbox, and PostgreSQL (postmaster, its live and exited backends); the load
 * generator's own (this process) beside them. All share the machine's cores. Per pay too, and
 * not moved by the machine's load: the BFF processes' write calls and bytes (/proc/<pid>/io),
 * and PostgreSQL's writing transactions and WAL bytes (transaction ids and WAL position).
 * Prints figures and targets; exits non-zero only if a pay did not succeed or the charges
 * counted in the sandbox and the BFF stores do not match the pays made.
 * Env: BENCH_PAYS (3000 at concurrency 32), BENCH_PAYS_C1 (500 at concurrency 1),
 * BENCH_WARMUP (1000 per BFF instance), BENCH_CONCURRENCY (32), BENCH_INSTANCES (3), BENCH_PG=0 (SQLite only),
 * BENCH_ROUNDS (1): run every configuration that many times, in turn, each round on fresh stores,
 * and judge the targets on the medians (a ratio: the median of each round's, side by side),
 * BENCH_CPU_PROF=<dir> (the sandbox and each BFF instance write a V8 CPU profile there as they stop),
 * BENCH_PIN=1 (the BFF on core 0, the sandbox and this generator on core 1: `pinApart`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { havePostgres, startPgCluster, type PgCluster } from '../../scripts/pg-cluster.mjs';
import { freePort } from '../support/child-server';
import { benchClient, percentile, type Answer } from './lib/http';
import {
  baselineConfigs,
  bffConfig,
  CARD,
  directConfig,
  pgDatabase,
  sqliteCount,
  type Config,
  type Item,
  type Timed,
} from './lib/pay-configs';
import { cpuMs, treeCpuMs, writeWork } from './lib/proc';
import { COL, f1, f2, printReport, printRun, type Run } from './lib/pay-report';
import { sandboxCredentials, startSandboxProcess } from './lib/sandbox-process';

const PAYS = Number(process.env.BENCH_PAYS ?? 3000);
const PAYS_C1 = Number(process.env.BENCH_PAYS_C1 ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 3);
const WITH_PG = process.env.BENCH_PG !== '0';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const PIN = process.env.BENCH_PIN === '1';
/**
 * BENCH_COMPARE=<checkout>: the durable SQLite configuration once more with that checkout's BFF
 * (another worktree, its own `npm run bff` bundle), right after this one's: a change measured
 * side by side, each round, rather than against a run made in other weather.
 */
const COMPARE = process.env.BENCH_COMPARE;

const client = benchClient(CONCURRENCY * 2);

interface SessionRun extends Timed {
  config: string;
}

// ---------------------------------------------------------------------------------------------
// Processes, stopped on the way out whatever happens (also on Ctrl-C)

const cleanups: (() => Promise<void> | void)[] = [];
let cleaning: Promise<void> | null = null;
/** Runs every cleanup once, newest first; a second caller waits for the same run. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error('cleanup:', (err as Error).message);
      }
    }
  })();
  return cleaning;
}
process.on('SIGINT', () => {
  console.error('interrupted: stopping the servers');
  void cleanup().finally(() => process.exit(130));
});

let sandboxPid = 0;
let pgCluster: PgCluster | null = null;
const pgCpu = () => (pgCluster ? treeCpuMs(pgCluster.pid()) : 0);
/** A connection to the cluster for its counters (not the BFF's database). */
let pgAdmin: pg.Client | null = null;

/** The cluster's WAL position and next transaction id: both only grow. */
async function pgCounters(): Promise<{ wal: number; xid: number }> {
  if (!pgAdmin) return { wal: 0, xid: 0 };
  const r = await pgAdmin.query<{ wal: string; xid: string }>(
    "select (pg_current_wal_lsn() - '0/0')::text as wal, " +
      'pg_snapshot_xmax(pg_current_snapshot())::text as xid',
  );
  return { wal: Number(r.rows[0]!.wal), xid: Number(r.rows[0]!.xid) };
}

/**
 * BENCH_PIN=1: the BFF processes (every thread, the fsync workers too) on core 0, the sandbox
 * and this load generator on core 1 (PostgreSQL where the scheduler puts it), so that at c=1
 * the BFF does not find its caches cold after the sandbox ran on its core. An analysis tool:
 * at c=32 the sandbox and the generator then share one core.
 */
function pinApart(bffPids: number[]): void {
  const pin = (core: string, pid: number) =>
    execFileSync('taskset', ['-a', '-p', '-c', core, String(pid)], { stdio: 'ignore' });
  for (const pid of bffPids) pin('0', pid);
  for (const pid of [sandboxPid, process.pid]) pin('1', pid);
}

// ---------------------------------------------------------------------------------------------
// The load: bounded loops over prepared items

async function measure(
  config: Config,
  items: Item[],
  concurrency: number,
  failures: { n: number },
  round: number,
): Promise<Run> {
  const lat: number[] = [];
  let next = 0;
  let failed = 0;
  const pids = config.bffPids();
  const pg0 = config.postgres ? await pgCounters() : null;
  const before = { bff: cpuMs(pids), sb: cpuMs([sandboxPid]), pg: pgCpu(), io: writeWork(pids) };
  const gen0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const it = items[next++]!;
      const s = performance.now();
      let a: Answer;
      try {
        a = await client.send(it.port, config.method ?? 'POST', config.path, it.headers, it.body);
      } catch (err) {
        a = { status: 0, body: (err as Error).message };
      }
      lat.push(performance.now() - s);
      if (!config.ok(a)) {
        if (failed++ === 0) console.error(`${config.name}: ${a.status} ${a.body.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const gen = process.cpuUsage(gen0);
  const n = items.length;
  failures.n += failed;
  const io = writeWork(pids);
  const pg1 = pg0 ? await pgCounters() : null;
  return {
    config: config.name,
    round,
    concurrency,
    n,
    seconds,
    lat: lat.sort((a, b) => a - b),
    failures: failed,
    bffCpu: (cpuMs(pids) - before.bff) / n,
    sandboxCpu: (cpuMs([sandboxPid]) - before.sb) / n,
    pgCpu: (pgCpu() - before.pg) / n,
    genCpu: (gen.user + gen.system) / 1000 / n,
    load: loadavg()[0]!,
    work: {
      writeCalls: (io.calls - before.io.calls) / n,
      writeKB: (io.bytes - before.io.bytes) / 1024 / n,
      readCalls: (io.reads - before.io.reads) / n,
      // Reading the next xid takes none, so the readings add nothing to the count.
      pgWrites: pg0 && pg1 ? (pg1.xid - pg0.xid) / n : NaN,
      pgWalKB: pg0 && pg1 ? (pg1.wal - pg0.wal) / 1024 / n : NaN,
    },
  };
}

function gitState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'server', 'contract'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} + uncommitted changes under server/ or contract/` : head;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const commit = gitState();
  console.log(
    `commit ${commit}; ${WARMUP} warm-up pays per BFF instance, then ${PAYS} at concurrency ` +
      `${CONCURRENCY} and ${PAYS_C1} at concurrency 1 per configuration; card ${CARD}, credit, ` +
      `1 installment; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} at the start` +
      (PIN ? '; BENCH_PIN: the BFF on core 0, the sandbox and the load generator on core 1' : ''),
  );
  console.log(
    'every process shares those cores: sandbox, BFF instances, PostgreSQL (fsync on) and this ' +
      'load generator (node:http, instances in turn, no balancer); every BFF store is durable ' +
      '(SQLite: each commit synced before it returns) but "SQLite normal"',
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-bff-pay-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const sandboxPort = await freePort();
  const sandboxFile = join(dir, 'sandbox.sqlite');
  const sandbox = await startSandboxProcess(sandboxFile, sandboxPort, process.env.BENCH_CPU_PROF);
  cleanups.push(sandbox.stop);
  sandboxPid = sandbox.child.pid!;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const { token, pem } = await sandboxCredentials(client, sandboxPort);
  const baseline = await baselineConfigs({
    sandboxUrl,
    token,
    pem,
    onExit: (stop) => cleanups.push(stop),
  });
  if (WITH_PG && havePostgres()) {
    // Durable, as the SQLite store is by default (`npm run test:postgres` runs fsync off).
    pgCluster = await startPgCluster({ extraOptions: '-c fsync=on -c full_page_writes=on' });
    cleanups.push(() => pgCluster?.stop());
    pgAdmin = new pg.Client({ connectionString: pgCluster.url });
    await pgAdmin.connect();
    cleanups.push(() => pgAdmin?.end());
  } else {
    console.log('PostgreSQL: not run (BENCH_PG=0 or initdb/pg_ctl not found)');
  }

  const failures = { n: 0 };
  const runs: Run[] = [];
  const sessions: SessionRun[] = [];
  const mismatches: string[] = [];
  let paysMade = 0;
  const bench = async (config: Config, round: number) => {
    if (PIN) pinApart(config.bffPids());
    // Per instance: each process's V8 optimizes its own hot paths.
    const warmup = WARMUP * Math.max(1, config.bffPids().length);
    const warm = await measure(config, await config.prepare(warmup), CONCURRENCY, failures, round);
    const timed: Timed = { n: 0, seconds: 0, lat: [], bffCpu: 0 };
    const hot = await measure(
      config,
      await config.prepare(PAYS, timed),
      CONCURRENCY,
      failures,
      round,
    );
    const one = await measure(config, await config.prepare(PAYS_C1), 1, failures, round);
    const made = warm.n + hot.n + one.n;
    if (config.charges !== false) paysMade += made;
    printRun(hot);
    printRun(one);
    runs.push(hot, one);
    if (timed.n) sessions.push({ ...timed, config: config.name });
    const charges = await config.countCharges();
    if (charges !== null && charges !== made) {
      mismatches.push(
        `${config.name}: ${charges} succeeded attempts in its store, ${made} pays made`,
      );
    }
    await config.close();
  };

  console.log(
    `\n${'config'.padEnd(COL)} ${'conc'.padEnd(5)} ${'pays'.padStart(5)} ${'pays/s'.padStart(8)}  ` +
      'latency ms        CPU ms per pay: BFF (or the baseline server), sandbox, PostgreSQL, ' +
      'load generator; load avg 1 min',
  );
  const bff = (
    name: string,
    instances: number,
    store: Record<string, string>,
    count: () => Promise<number>,
    cwd?: string,
  ) =>
    bffConfig({
      ...(cwd ? { cwd } : {}),
      name,
      client,
      sandboxUrl,
      instances,
      store,
      countCharges: count,
      concurrency: CONCURRENCY,
      onExit: (stop) => cleanups.push(stop),
    });
  const succeeded = "select count(*) as n from payment_attempts where status = 'succeeded'";
  for (let r = 1; r <= ROUNDS; r++) {
    if (ROUNDS > 1) console.log(`round ${r} of ${ROUNDS}`);
    await oneRound(r);
  }

  async function oneRound(r: number): Promise<void> {
    await bench(directConfig(client, sandboxPort, token, pem), r);
    await bench(baseline.hello, r);
    await bench(baseline.passThrough, r);
    const sqliteFile = join(dir, `bff-${r}.sqlite`);
    await bench(
      await bff('BFF×1 SQLite', 1, { BFF_DB: sqliteFile }, async () =>
        sqliteCount(sqliteFile, succeeded),
      ),
      r,
    );
    if (COMPARE) {
      const otherFile = join(dir, `bff-other-${r}.sqlite`);
      await bench(
        await bff(
          `BFF×1 SQLite @${basename(COMPARE)}`,
          1,
          { BFF_DB: otherFile },
          async () => sqliteCount(otherFile, succeeded),
          COMPARE,
        ),
        r,
      );
    }
    const normalFile = join(dir, `bff-normal-${r}.sqlite`);
    await bench(
      await bff(
        'BFF×1 SQLite normal',
        1,
        { BFF_DB: normalFile, BFF_SQLITE_SYNC: 'normal' },
        async () => sqliteCount(normalFile, succeeded),
      ),
      r,
    );
    if (pgCluster) {
      const one = await pgDatabase(pgCluster.url, `bench_pg_1_r${r}`);
      await bench(await bff('BFF×1 PG', 1, { DATABASE_URL: one.url }, one.count), r);
      // BENCH_INSTANCES=1: the one-instance configuration above is all there is.
      if (INSTANCES > 1) {
        const many = await pgDatabase(pgCluster.url, `bench_pg_${INSTANCES}_r${r}`);
        await bench(
          await bff(`BFF×${INSTANCES} PG`, INSTANCES, { DATABASE_URL: many.url }, many.count),
          r,
        );
      }
    }
  }

  console.log(
    `\nsession creation (POST /v1/checkout-sessions, concurrency ${CONCURRENCY}, before the timed pays)`,
  );
  for (const s of sessions) {
    console.log(
      `${s.config.padEnd(COL)} ${String(s.n).padStart(5)} ${(s.n / s.seconds).toFixed(0).padStart(6)}/s  ` +
        `p50 ${f2(percentile(s.lat, 50))}  p99 ${f1(percentile(s.lat, 99))}  BFF CPU ${f2(s.bffCpu)} ms/session`,
    );
  }

  printReport(runs, { rounds: ROUNDS, concurrency: CONCURRENCY, instances: INSTANCES });

  const sandboxCharges = sqliteCount(sandboxFile, 'select count(*) as n from payments');
  if (sandboxCharges !== paysMade) {
    mismatches.push(`sandbox: ${sandboxCharges} payments recorded, ${paysMade} pays made`);
  }
  const after = gitState();
  if (after !== commit) console.log(`note: the tree changed during the run (${commit} → ${after})`);
  console.log(
    `\ncorrectness: ${paysMade} pays made, ${failures.n} did not succeed; sandbox charges ` +
      `${sandboxCharges}${mismatches.length ? `; ${mismatches.join('; ')}` : ', every store agrees'}`,
  );
  return failures.n === 0 && mismatches.length === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(err);
} finally {
  client.destroy();
  await cleanup();
}
if (code !== 0)
  console.error('bff-pay bench: FAILED (a pay did not succeed, or charges do not match)');
process.exit(code);
