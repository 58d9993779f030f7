import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';

/** A loopback port free at the moment of asking (for a child process to listen on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject()));
    });
  });
}

/** A loopback port another server holds while `use` runs (to see a child's listen fail). */
export async function withPortTaken<T>(use: (port: number) => Promise<T>): Promise<T> {
  const holder: Server = createServer();
  const port = await new Promise<number>((resolve) =>
    holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
  );
  try {
    return await use(port);
  } finally {
    await new Promise((r) => holder.close(r));
  }
}

export interface ChildServer {
  pid: number;
  /** Everything the child wrote so far (stdout and stderr). */
  out(): string;
  /** Sends `signal` (SIGTERM by default); resolves with the exit code (at once if it exited). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `node [nodeArgs] <script>` with `env` and resolves once its output contains every one
 * of `ready` (rejects if it exits first or is not ready within 30 s).
 */
export async function startChildServer(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<ChildServer> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 30_000);
    child.stdout.on('data', () => {
      if (ready.every((text) => out.includes(text))) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return {
    pid: child.pid!,
    out: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill(signal);
      return exited;
    },
  };
}
