import { OffsetClock } from '../../server/lib/clock';
import { openDb } from '../../server/lib/db';
import { createSandboxApp, type Sandbox, type SandboxDeps } from '../../server/sandbox/app';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import type { SandboxDb } from '../../server/sandbox/db';
import { listen } from './servers';

export interface TestSandbox {
  url: string;
  sandbox: Sandbox;
  /** Business time (`/__sandbox/clock`). */
  clock: OffsetClock;
  /** Real time of the security windows (tokens, ciphertext age, nonces): tests may move it. */
  realClock: OffsetClock;
  /** A fresh access token of the default client for the Gateway or Integration API. */
  token(family?: 'gateway' | 'integration'): Promise<string>;
  /** fetch against the sandbox with a JSON body and, unless `token: null`, a Gateway token. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * Starts a sandbox on a free loopback port over a SQLite database (`:memory:` unless a file is
 * given, for restart tests).
 */
export async function startSandbox(
  opts: { dbUrl?: string; deps?: Partial<SandboxDeps> } = {},
): Promise<TestSandbox> {
  const { db, close: closeDb } = await openDb<SandboxDb>({ url: opts.dbUrl ?? ':memory:' });
  const clock = opts.deps?.clock ?? new OffsetClock();
  const realClock = new OffsetClock();
  // The public URL must be known before listening, so bind first through a holder.
  // The Node bindings (`env.incoming`) pass through so faults can drop the connection.
  const holder: { fetch: (req: Request, env?: unknown) => Response | Promise<Response> } = {
    fetch: () => new Response('starting', { status: 503 }),
  };
  const server = await listen({
    fetch: (req: Request, env?: unknown) => holder.fetch(req, env),
  } as never);
  const sandbox = await createSandboxApp({
    db,
    publicUrl: server.url,
    clock,
    realClock,
    ...opts.deps,
  });
  holder.fetch = (req, env) => sandbox.app.fetch(req, env);
  const tokens = new Map<string, string>();

  const token = async (family: 'gateway' | 'integration' = 'gateway') => {
    const path = family === 'gateway' ? '/api/auth/token' : '/api/authentication/login';
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        userName: DEFAULT_CLIENT.userName,
        password: DEFAULT_CLIENT.password,
      }),
    });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { accessToken: string }).accessToken;
  };

  return {
    url: server.url,
    sandbox,
    clock,
    realClock,
    token,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.body !== undefined) headers['content-type'] ??= 'application/json';
      if (o.token !== null) {
        const family = path.startsWith('/api/') ? 'integration' : 'gateway';
        let t = o.token;
        if (t === undefined) {
          t = tokens.get(family) ?? (await token(family));
          tokens.set(family, t);
        }
        headers.authorization ??= `Bearer ${t}`;
      }
      const res = await fetch(server.url + path, {
        method,
        headers,
        ...(o.body !== undefined
          ? { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) }
          : {}),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await server.close();
      await sandbox.close();
      await closeDb();
    },
  };
}
