import { Hono } from 'hono';
import { listen, type RunningServer } from '../../../support/servers';

export interface Received {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** A webhook endpoint on loopback that records what it gets and answers `status`. */
export async function startReceiver(
  port = 0,
): Promise<RunningServer & { received: Received[]; status: number }> {
  const state = { received: [] as Received[], status: 200 };
  const app = new Hono().post('/hook', async (c) => {
    state.received.push({
      authorization: c.req.header('authorization'),
      body: (await c.req.json()) as Record<string, unknown>,
    });
    return c.body(null, state.status as 200);
  });
  const server = await listen(app, port);
  return {
    url: server.url,
    port: server.port,
    close: () => server.close(),
    get received() {
      return state.received;
    },
    get status() {
      return state.status;
    },
    set status(v: number) {
      state.status = v;
    },
  };
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 12_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const basic = (user: string, password: string) =>
  Buffer.from(`${user}:${password}`).toString('base64');
