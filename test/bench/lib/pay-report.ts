import { loadavg } from 'node:os';
import { percentile } from './http';
import type { Timed } from './pay-configs';

/*
 * What test/bench/bff-pay.ts prints of its runs: one line per run as it ends, then the medians,
 * the per-pay work, the targets of issue 13 and the BFF beside the floor under it.
 */

/** The width of the configuration column. */
export const COL = 19;
export const DIRECT = 'sandbox direct';
export const HELLO = 'Hono hello-world';
export const THROUGH = 'Hono pass-through';

export interface Run extends Timed {
  config: string;
  round: number;
  concurrency: number;
  failures: number;
  sandboxCpu: number;
  pgCpu: number;
  genCpu: number;
  load: number;
  /** Per pay, figures the machine's load does not move (see `Work`). */
  work: Work;
}

/**
 * Per pay: the BFF processes' write calls and KB passed to them (SQLite's WAL frames, two
 * calls each, and checkpoints; each PostgreSQL query is one call; plus the HTTP answer and the
 * gateway request), and on PostgreSQL the transactions that wrote (xids taken) and the WAL
 * the cluster wrote.
 */
export interface Work {
  writeCalls: number;
  writeKB: number;
  readCalls: number;
  pgWrites: number;
  pgWalKB: number;
}

interface Figures {
  rate: number;
  p50: number;
  p99: number;
  bffCpu: number;
}

const figuresOf = (r: Run): Figures => ({
  rate: r.n / r.seconds,
  p50: percentile(r.lat, 50),
  p99: percentile(r.lat, 99),
  bffCpu: r.bffCpu,
});

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '—');

export function printRun(r: Run): void {
  console.log(
    `${r.config.padEnd(COL)} c=${String(r.concurrency).padEnd(3)} ${String(r.n).padStart(5)} ` +
      `${(r.n / r.seconds).toFixed(0).padStart(6)}/s  p50 ${f2(percentile(r.lat, 50)).padStart(6)}  ` +
      `p99 ${f1(percentile(r.lat, 99)).padStart(6)}  BFF ${f2(r.bffCpu).padStart(5)}  ` +
      `sandbox ${f2(r.sandboxCpu).padStart(5)}  PG ${f2(r.pgCpu).padStart(5)}  ` +
      `gen ${f2(r.genCpu).padStart(5)}  load ${r.load.toFixed(2)}` +
      (r.failures ? `  FAILED ${r.failures}` : ''),
  );
}

/** The per-pay work of each configuration and concurrency (medians over the rounds). */
function printWork(all: Run[]): void {
  console.log(
    "\nper pay, whatever the machine's load: the BFF's write calls and KB written (files and " +
      'sockets); PostgreSQL: transactions that wrote, KB of WAL',
  );
  const seen = new Set<string>();
  for (const r of all) {
    const k = `${r.config} ${r.concurrency}`;
    if (seen.has(k) || r.config === DIRECT || r.config === HELLO) continue;
    seen.add(k);
    const of = all.filter((x) => x.config === r.config && x.concurrency === r.concurrency);
    const m = (f: (w: Work) => number) => median(of.map((x) => f(x.work)));
    const pgPart = Number.isFinite(m((w) => w.pgWrites))
      ? `  PG writes ${f1(m((w) => w.pgWrites)).padStart(4)}  WAL ${f1(m((w) => w.pgWalKB)).padStart(5)} KB`
      : '';
    console.log(
      `${r.config.padEnd(COL)} c=${String(r.concurrency).padEnd(3)} ` +
        `write calls ${f1(m((w) => w.writeCalls)).padStart(5)}  ` +
        `written ${f1(m((w) => w.writeKB)).padStart(6)} KB  ` +
        `read calls ${f1(m((w) => w.readCalls)).padStart(5)}${pgPart}`,
    );
  }
}

/**
 * The BFF against what any server between the shopper and the gateway costs on this stack
 * (`Hono pass-through`: Hono and @hono/node-server as the BFF is served, the BFF's HTTP layer
 * to the gateway, no store), run side by side: what is left is the BFF's own work.
 */
function printFloor(
  figures: (name: string, c: number) => Figures | undefined,
  sideBySide: (
    a: [string, number],
    b: [string, number],
    fn: (x: Figures, y: Figures) => number,
  ) => number,
  over: string,
  concurrency: number,
): void {
  const through = figures(THROUGH, concurrency);
  const hello = figures(HELLO, concurrency);
  if (!through || !hello) return;
  console.log(
    `\nthe floor, beside the targets: ${HELLO} ${hello.rate.toFixed(0)} requests/s at ` +
      `c=${concurrency}, ${f2(hello.bffCpu)} ms of server CPU each; ${THROUGH} (the same pay ` +
      `forwarded to the sandbox, no store) ${through.rate.toFixed(0)} pays/s, ` +
      `${f2(through.bffCpu)} ms of server CPU each${over}`,
  );
  const adds = sideBySide([THROUGH, 1], [DIRECT, 1], (x, y) => x.p50 - y.p50);
  target(`${THROUGH} adds at c=1, p50`, `${f2(adds)} ms${over}`, '—', null);
  for (const name of ['BFF×1 SQLite', 'BFF×1 SQLite normal', 'BFF×1 PG']) {
    if (!figures(name, concurrency)) continue;
    const rate = sideBySide([name, concurrency], [THROUGH, concurrency], (x, y) => x.rate / y.rate);
    const cpu = sideBySide(
      [name, concurrency],
      [THROUGH, concurrency],
      (x, y) => x.bffCpu - y.bffCpu,
    );
    const late = sideBySide([name, 1], [THROUGH, 1], (x, y) => x.p50 - y.p50);
    target(
      `${name} beyond the floor`,
      `${rate.toFixed(2)}× pays/s, +${f2(cpu)} ms CPU, +${f2(late)} ms at c=1`,
      '—',
      null,
    );
  }
}

function target(name: string, value: string, goal: string, met: boolean | null): void {
  const verdict = met === null ? '' : met ? 'met' : 'NOT MET';
  console.log(`  ${name.padEnd(44)} ${value.padEnd(30)} ${goal.padEnd(14)} ${verdict}`);
}

/**
 * Everything after the runs: the medians over the rounds, the per-pay work, the targets and the
 * floor. Each figure is judged on its median over the rounds; a comparison of two
 * configurations on the median of the rounds' own comparisons (run side by side, so the
 * machine's drift cancels).
 */
export function printReport(
  runs: Run[],
  opts: { rounds: number; concurrency: number; instances: number },
): void {
  const { rounds: ROUNDS, concurrency: CONCURRENCY, instances: INSTANCES } = opts;
  const pick = (name: string, c: number, round: number) =>
    runs.find((r) => r.config === name && r.concurrency === c && r.round === round);
  const figures = (name: string, c: number): Figures | undefined => {
    const of = runs.filter((r) => r.config === name && r.concurrency === c).map(figuresOf);
    if (of.length === 0) return undefined;
    return {
      rate: median(of.map((f) => f.rate)),
      p50: median(of.map((f) => f.p50)),
      p99: median(of.map((f) => f.p99)),
      bffCpu: median(of.map((f) => f.bffCpu)),
    };
  };
  const sideBySide = (
    a: [string, number],
    b: [string, number],
    fn: (x: Figures, y: Figures) => number,
  ): number => {
    const each: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const x = pick(a[0], a[1], r);
      const y = pick(b[0], b[1], r);
      if (x && y) each.push(fn(figuresOf(x), figuresOf(y)));
    }
    return median(each);
  };
  if (ROUNDS > 1) {
    console.log(`\nmedians of ${ROUNDS} rounds`);
    const seen = new Set<string>();
    for (const r of runs) {
      const k = `${r.config} ${r.concurrency}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const f = figures(r.config, r.concurrency)!;
      console.log(
        `${r.config.padEnd(COL)} c=${String(r.concurrency).padEnd(3)} ${f.rate.toFixed(0).padStart(12)}/s  ` +
          `p50 ${f2(f.p50).padStart(6)}  p99 ${f1(f.p99).padStart(6)}  BFF ${f2(f.bffCpu).padStart(5)}`,
      );
    }
  }
  printWork(runs);
  const over = ROUNDS > 1 ? `, median of ${ROUNDS}` : '';
  const sqliteName = 'BFF×1 SQLite';
  const manyName = `BFF×${INSTANCES} PG`;
  const sqlite = figures(sqliteName, CONCURRENCY);
  console.log(`\ntargets (figures are printed, never asserted)`);
  for (const name of [sqliteName, 'BFF×1 SQLite normal', 'BFF×1 PG', manyName]) {
    const f = figures(name, CONCURRENCY);
    if (!f || (name === manyName && INSTANCES <= 1)) continue;
    target(`BFF CPU per pay, ${name}`, `${f2(f.bffCpu)} ms${over}`, '≤ 1.0 ms', f.bffCpu <= 1);
  }
  if (sqlite) {
    target(
      `pays/s, ${sqliteName}, c=${CONCURRENCY}`,
      `${sqlite.rate.toFixed(0)}/s${over}`,
      '≥ 700/s',
      sqlite.rate >= 700,
    );
    target(
      `p99, ${sqliteName}, c=${CONCURRENCY}`,
      `${f1(sqlite.p99)} ms${over}`,
      '≤ 100 ms',
      sqlite.p99 <= 100,
    );
  }
  const ratio = (x: Figures, y: Figures) => x.rate / y.rate;
  const pgOverSqlite = sideBySide(['BFF×1 PG', CONCURRENCY], [sqliteName, CONCURRENCY], ratio);
  if (Number.isFinite(pgOverSqlite)) {
    target(
      'throughput PG / SQLite (one instance each)',
      `${pgOverSqlite.toFixed(2)}×${over}`,
      '≥ 0.8×',
      pgOverSqlite >= 0.8,
    );
  }
  const manyOverOne = sideBySide([manyName, CONCURRENCY], ['BFF×1 PG', CONCURRENCY], ratio);
  if (INSTANCES > 1 && Number.isFinite(manyOverOne)) {
    target(
      `throughput ${INSTANCES}×PG / 1×PG`,
      `${manyOverOne.toFixed(2)}× (same 2 cores)${over}`,
      '—',
      null,
    );
  }
  for (const name of [sqliteName, 'BFF×1 PG']) {
    const adds = sideBySide([name, 1], [DIRECT, 1], (x, y) => x.p50 - y.p50);
    const bff1 = figures(name, 1);
    const direct1 = figures(DIRECT, 1);
    if (!Number.isFinite(adds) || !bff1 || !direct1) continue;
    const detail =
      ROUNDS > 1
        ? `${f2(adds)} ms${over}`
        : `${f2(adds)} ms (${f2(bff1.p50)} − ${f2(direct1.p50)})`;
    target(`the BFF adds at c=1, p50, ${name}`, detail, '≤ 1.5 ms', adds <= 1.5);
  }
  printFloor(figures, sideBySide, over, CONCURRENCY);
  console.log(
    `  machine load average (1, 5, 15 min) at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
}
