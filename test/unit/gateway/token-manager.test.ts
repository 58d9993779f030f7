import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../server/gateway/errors';
import {
  GatewayNetworkError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
} from '../../../server/gateway/errors';
import { createGatewayClient } from '../../../server/gateway/client';
import { TokenManager, type TokenCredentials } from '../../../server/gateway/token-manager';
import { listen } from '../../support/servers';
import { Hono } from 'hono';
import { ManualClock, startFakeGateway, type FakeGateway } from './fake-gateway';

let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const cred = (url: string, over: Partial<TokenCredentials> = {}): TokenCredentials => ({
  baseUrl: url,
  family: 'gateway',
  userName: 'merchant',
  password: 'pw',
  ...over,
});

/** The token once a renewal started in the background has replaced `old` (bounded wait). */
async function renewed(tm: TokenManager, c: TokenCredentials, old: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const t = await tm.getToken(c);
    if (t !== old) return t;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the token was not renewed');
}

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error('condition not reached');
}

describe('TokenManager', () => {
  it('1,000 concurrent callers on a cold cache cause exactly one token request', async () => {
    gw = await startFakeGateway();
    const tm = new TokenManager();
    const c = cred(gw.url);
    const got = await Promise.all(Array.from({ length: 1000 }, () => tm.getToken(c)));
    expect(gw.state.tokenRequests).toHaveLength(1);
    expect(new Set(got).size).toBe(1);
    expect(got[0]).toMatch(/^tok-1-/);
  });

  it('reuses the token until 60 s before expiry, then fetches one new token for all callers', async () => {
    gw = await startFakeGateway();
    const clock = new ManualClock();
    const tm = new TokenManager({ clock });
    const c = cred(gw.url);
    const first = await tm.getToken(c);
    clock.advance(3_600_000 - 60_000 - 1);
    expect(await tm.getToken(c)).toBe(first);
    expect(gw.state.tokenRequests).toHaveLength(1);
    clock.advance(1);
    // In the renewal window the current token is still served while one renewal runs.
    const during = await Promise.all(Array.from({ length: 50 }, () => tm.getToken(c)));
    expect(new Set(during)).toEqual(new Set([first]));
    const again = await renewed(tm, c, first);
    expect(again).not.toBe(first);
    expect(gw.state.tokenRequests).toHaveLength(2);
  });

  it('a hanging renewal does not hold callers while the current token is valid', async () => {
    gw = await startFakeGateway();
    const clock = new ManualClock();
    const tm = new TokenManager({ clock }); // a token request may take 30 s
    const c = cred(gw.url);
    const first = await tm.getToken(c);
    gw.state.tokenHang = true;
    clock.advance(3_600_000 - 30_000); // 30 s left: inside the renewal window
    const got = await Promise.all(Array.from({ length: 20 }, () => tm.getToken(c)));
    expect(new Set(got)).toEqual(new Set([first]));
    await until(() => gw!.state.tokenRequests.length >= 2);
    expect(await tm.getToken(c)).toBe(first);
    expect(gw.state.tokenRequests).toHaveLength(2); // one renewal, shared
  });

  it('a gateway call inside the renewal window goes out with the current token', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/cards/public-key', (c) =>
        c.json({ key: `PEM ${c.req.header('authorization')}` }),
      ),
    );
    const clock = new ManualClock();
    const gc = createGatewayClient({
      gatewayBaseUrl: gw.url,
      credentials: { gateway: { userName: 'merchant', password: 'pw' } },
      clock,
    });
    try {
      const first = await gc.getPublicKey();
      gw.state.tokenHang = true;
      clock.advance(3_600_000 - 30_000);
      // Waiting for the hanging renewal timed every call out (sent: false) for up to 30 s.
      expect(await gc.getPublicKey(undefined, { timeoutMs: 1_000 })).toEqual(first);
    } finally {
      gc.close();
    }
  });

  it('without a valid token a caller waits for the renewal (here: until it times out)', async () => {
    gw = await startFakeGateway();
    const clock = new ManualClock();
    const tm = new TokenManager({ clock, timeoutMs: 300 });
    const c = cred(gw.url);
    await tm.getToken(c);
    gw.state.tokenHang = true;
    clock.advance(3_600_000);
    const err = await tm.getToken(c).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(false);
  });

  it('renews a short-lived token at 80% of its lifetime', async () => {
    gw = await startFakeGateway();
    gw.state.tokenLifetimeMs = 100_000;
    const clock = new ManualClock();
    const tm = new TokenManager({ clock });
    const c = cred(gw.url);
    const first = await tm.getToken(c);
    clock.advance(79_999);
    expect(await tm.getToken(c)).toBe(first);
    clock.advance(1);
    expect(await renewed(tm, c, first)).not.toBe(first);
    expect(gw.state.tokenRequests).toHaveLength(2);
  });

  it('keeps the old token when an early renewal fails, and fails once it has expired', async () => {
    gw = await startFakeGateway();
    const clock = new ManualClock();
    const tm = new TokenManager({ clock });
    const c = cred(gw.url);
    const first = await tm.getToken(c);
    gw.state.tokenFailStatus = 500;
    clock.advance(3_600_000 - 30_000);
    expect(await tm.getToken(c)).toBe(first);
    clock.advance(30_000);
    await expect(tm.getToken(c)).rejects.toBeInstanceOf(GatewayUnauthorizedError);
  });

  it('keeps one token per base URL, family and user name', async () => {
    gw = await startFakeGateway();
    const tm = new TokenManager();
    const tokens = await Promise.all([
      tm.getToken(cred(gw.url)),
      tm.getToken(cred(gw.url + '/')),
      tm.getToken(cred(gw.url, { userName: 'other' })),
      tm.getToken(cred(gw.url, { family: 'integration' })),
      tm.getToken(cred(gw.url.replace('127.0.0.1', 'localhost'))),
    ]);
    expect(gw.state.tokenRequests.map((r) => r.path).sort()).toEqual([
      '/api/auth/token',
      '/api/auth/token',
      '/api/auth/token',
      '/api/authentication/login',
    ]);
    expect(tokens[0]).toBe(tokens[1]);
    expect(new Set(tokens).size).toBe(4);
  });

  it('after a rejection fetches one new token, shared by concurrent callers', async () => {
    gw = await startFakeGateway();
    const tm = new TokenManager();
    const c = cred(gw.url);
    const first = await tm.getToken(c);
    const renewed = await Promise.all(
      Array.from({ length: 20 }, () => tm.refreshAfterRejection(c, first)),
    );
    expect(gw.state.tokenRequests).toHaveLength(2);
    expect(new Set(renewed).size).toBe(1);
    // A late caller still holding the old token gets the new one without a request.
    expect(await tm.refreshAfterRejection(c, first)).toBe(renewed[0]);
    expect(gw.state.tokenRequests).toHaveLength(2);
  });

  it.each([401, 400, 500])(
    'a %s from the token operation is a GatewayUnauthorizedError without secrets',
    async (status) => {
      gw = await startFakeGateway();
      gw.state.tokenFailStatus = status;
      const tm = new TokenManager();
      const err = await tm
        .getToken(cred(gw.url, { password: 'pw-secret-123' }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayUnauthorizedError);
      expect((err as GatewayError).status).toBe(status);
      expect((err as GatewayError).operation).toBe('token');
      expect(JSON.stringify(err) + String(err)).not.toContain('pw-secret-123');
    },
  );

  it('a wrong password is a GatewayUnauthorizedError and nothing is cached', async () => {
    gw = await startFakeGateway();
    const tm = new TokenManager();
    await expect(tm.getToken(cred(gw.url, { password: 'bad' }))).rejects.toBeInstanceOf(
      GatewayUnauthorizedError,
    );
    expect(await tm.getToken(cred(gw.url))).toMatch(/^tok-/);
  });

  it('a malformed or unauthenticated token answer is a GatewayUnauthorizedError', async () => {
    const app = new Hono()
      .post('/api/auth/token', (c) => c.json({ authenticated: false, message: 'no' }))
      .post('/api/authentication/login', (c) =>
        c.json({
          authenticated: false,
          created: '2026-01-01T00:00:00Z',
          expiration: '2026-01-01T01:00:00Z',
          accessToken: 'x',
          message: 'no',
        }),
      );
    const server = await listen(app);
    try {
      const tm = new TokenManager();
      await expect(tm.getToken(cred(server.url))).rejects.toBeInstanceOf(GatewayUnauthorizedError);
      await expect(tm.getToken(cred(server.url, { family: 'integration' }))).rejects.toBeInstanceOf(
        GatewayUnauthorizedError,
      );
    } finally {
      await server.close();
    }
  });

  it('a closed port is a GatewayNetworkError, not sent', async () => {
    const server = await listen(new Hono());
    const url = server.url;
    await server.close();
    const err = await new TokenManager().getToken(cred(url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect((err as GatewayNetworkError).sent).toBe(false);
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});
