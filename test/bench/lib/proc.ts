import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds per clock tick of /proc/<pid>/stat (`getconf CLK_TCK`, normally 100). */
const TICK_MS = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100);

/** Fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime… */
function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU (user + system) the processes have used so far, in ms; a gone process counts 0. */
export function cpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const f = stat(pid);
    if (f) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * TICK_MS;
}

/**
 * CPU of a process and its children, in ms: its own, what its exited children used (cutime,
 * cstime: PostgreSQL's postmaster reaps its backends) and its live children's own.
 */
export function treeCpuMs(root: number): number {
  const f = stat(root);
  if (!f) return 0;
  let ms = (Number(f[13]) + Number(f[14])) * TICK_MS + cpuMs([root]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const c = stat(Number(name));
    if (c && Number(c[1]) === root) ms += (Number(c[11]) + Number(c[12])) * TICK_MS;
  }
  return ms;
}

/**
 * Write calls (`syscw`) and bytes passed to them (`wchar`) of /proc/<pid>/io, summed; and read
 * calls (`syscr`): a page a store's cache no longer holds is one more read.
 */
export interface WriteWork {
  calls: number;
  bytes: number;
  reads: number;
}

/**
 * What the processes have written so far: every write, pwrite and writev, to files and sockets
 * alike (SQLite's WAL frames and checkpoints, HTTP answers and requests, PostgreSQL queries).
 * Unlike CPU time, it does not move with the machine's load. A gone process counts 0.
 */
export function writeWork(pids: readonly number[]): WriteWork {
  const work = { calls: 0, bytes: 0, reads: 0 };
  for (const pid of pids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/io`, 'utf8');
    } catch {
      continue;
    }
    work.calls += Number(/^syscw: (\d+)/m.exec(text)?.[1] ?? 0);
    work.bytes += Number(/^wchar: (\d+)/m.exec(text)?.[1] ?? 0);
    work.reads += Number(/^syscr: (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return work;
}
