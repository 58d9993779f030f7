import { Hono, type Context } from 'hono';
import { listen, type RunningServer } from '../../support/servers';

export interface SeenRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

export interface FakeState {
  /** Token requests per path, counted before answering. */
  tokenRequests: { path: string; userName: string }[];
  /** Every non-token request, in arrival order. */
  requests: SeenRequest[];
  /** Tokens the fake accepts; `revokeAll()` empties it so the next call gets a 401. */
  valid: Set<string>;
  /** Lifetime the token answer reports (expiration − created). */
  tokenLifetimeMs: number;
  /** When set, the token operation answers this status with an error array. */
  tokenFailStatus: number | null;
  /** When true, the token operation never answers. */
  tokenHang: boolean;
  /** When true, every API call answers 401 whatever the token. */
  alwaysUnauthorized: boolean;
}

export interface FakeGateway extends RunningServer {
  state: FakeState;
  revokeAll(): void;
}

/**
 * A loopback fake of the gateway for client tests: real HTTP, real token operations
 * (`/api/auth/token`, `/api/authentication/login`, password `pw`), and the routes a test adds.
 */
export async function startFakeGateway(
  routes: (app: Hono, state: FakeState) => void = () => {},
): Promise<FakeGateway> {
  const state: FakeState = {
    tokenRequests: [],
    requests: [],
    valid: new Set(),
    tokenLifetimeMs: 3_600_000,
    tokenFailStatus: null,
    tokenHang: false,
    alwaysUnauthorized: false,
  };
  let n = 0;
  const app = new Hono();
  const issue = async (c: Context) => {
    const body = (await c.req.json()) as { userName: string; password: string };
    state.tokenRequests.push({ path: c.req.path, userName: body.userName });
    if (state.tokenHang) return new Promise<Response>(() => {});
    if (state.tokenFailStatus !== null) {
      return c.json(
        [{ tag: 'authentication', description: 'refused' }],
        state.tokenFailStatus as 401,
      );
    }
    if (body.password !== 'pw') {
      return c.json(
        [{ tag: 'authentication', description: 'userName or password is incorrect' }],
        401,
      );
    }
    const token = `tok-${++n}-${body.userName}`;
    state.valid.add(token);
    const created = new Date('2026-01-01T00:00:00Z');
    return c.json({
      authenticated: true,
      created: created.toISOString(),
      expiration: new Date(created.getTime() + state.tokenLifetimeMs).toISOString(),
      accessToken: token,
      message: 'OK',
    });
  };
  app.post('/api/auth/token', issue);
  app.post('/api/authentication/login', issue);
  app.use('*', async (c, next) => {
    const url = new URL(c.req.url);
    state.requests.push({
      method: c.req.method,
      path: url.pathname,
      query: url.search,
      headers: Object.fromEntries(c.req.raw.headers),
      body: await c.req.text(),
    });
    const auth = c.req.header('authorization') ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (state.alwaysUnauthorized || !state.valid.has(token)) {
      return c.json([{ tag: 'Authorization', description: 'unknown access token' }], 401);
    }
    await next();
  });
  routes(app, state);
  const server = await listen(app);
  return { ...server, state, revokeAll: () => state.valid.clear() };
}

/** A mutable clock for token-expiry tests. */
export class ManualClock {
  constructor(private t = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
