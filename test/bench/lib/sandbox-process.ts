import { spawn } from 'node:child_process';
import type { BenchClient } from './http';

/**
 * The sandbox as `npm run sandbox` starts it (`scripts/sandbox.mjs`: the bundled
 * `server/sandbox/main.ts`), as its own process on `port` over the SQLite file `dbFile`, logs
 * silent; resolves once it says "sandbox ready". `profileDir`: V8 CPU profiles go there.
 */
export async function startSandboxProcess(dbFile: string, port: number, profileDir?: string) {
  const started = performance.now();
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, 'scripts/sandbox.mjs'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_DB: dbFile,
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('sandbox ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, startupMs: performance.now() - started, stop };
}

/** A Gateway API access token of the default client and its card public key (PEM). */
export async function sandboxCredentials(
  client: BenchClient,
  port: number,
): Promise<{ token: string; pem: string }> {
  const tok = await client.request(port, 'POST', '/api/auth/token', {
    userName: 'sandbox',
    password: 'sandbox',
  });
  const token = (JSON.parse(tok.body) as { accessToken: string }).accessToken;
  const key = await client.request(port, 'GET', '/v1/cards/public-key', undefined, token);
  return { token, pem: (JSON.parse(key.body) as { key: string }).key };
}
