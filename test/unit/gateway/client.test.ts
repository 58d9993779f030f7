import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../server/gateway/errors';
import {
  GatewayNetworkError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
} from '../../../server/gateway/errors';
import { listen } from '../../support/servers';
import { startFakeGateway, type FakeGateway } from './fake-gateway';
import { PASSWORD, authorization, client, credit, paymentRequests, plan } from './fixtures';

// The gateway client's tokens, timeouts and network failures. Also: client-answers.test.ts
// (how answers and errors are read) and client-operations.test.ts (recurrence,
// reconciliation, bank slips, webhooks).
let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('createGatewayClient: tokens', () => {
  it('1,000 concurrent calls on a cold cache make one token request', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/cards/public-key', (c) => c.json({ key: 'PEM' })),
    );
    const gc = client(gw.url);
    const keys = await Promise.all(Array.from({ length: 1000 }, () => gc.getPublicKey()));
    expect(keys.every((k) => k.key === 'PEM')).toBe(true);
    expect(gw.state.tokenRequests).toHaveLength(1);
    expect(gw.state.requests).toHaveLength(1000);
  });

  it('a 401 triggers one token refresh and exactly one retry, money-moving calls included', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', (c) => c.json(authorization())));
    const gc = client(gw.url);
    await gc.getPublicKey().catch(() => undefined); // warm the token cache
    gw.revokeAll();
    const res = await gc.createCreditPayment(credit);
    expect(res.paymentAuthorization.paymentId).toBe('pay_1');
    expect(gw.state.tokenRequests).toHaveLength(2);
    const sent = paymentRequests(gw.state);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers.authorization).not.toBe(sent[1]!.headers.authorization);
    expect(sent[0]!.body).toBe(sent[1]!.body);
  });

  it('a 401 storm on 300 concurrent calls causes one token refresh', async () => {
    gw = await startFakeGateway((app) =>
      app.get('/v1/cards/public-key', (c) => c.json({ key: 'PEM' })),
    );
    const gc = client(gw.url);
    await gc.getPublicKey();
    gw.revokeAll();
    const keys = await Promise.all(Array.from({ length: 300 }, () => gc.getPublicKey()));
    expect(keys.every((k) => k.key === 'PEM')).toBe(true);
    expect(gw.state.tokenRequests).toHaveLength(2);
    expect(gw.state.requests).toHaveLength(1 + 300 + 300);
  });

  it('a second 401 is a GatewayUnauthorizedError: never a third attempt', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', (c) => c.json(authorization())));
    gw.state.alwaysUnauthorized = true;
    const err = await client(gw.url)
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayUnauthorizedError);
    expect((err as GatewayError).operation).toBe('createCreditPayment');
    expect(paymentRequests(gw.state)).toHaveLength(2);
    expect(gw.state.tokenRequests).toHaveLength(2);
  });

  it('refused credentials surface as GatewayUnauthorizedError and nothing is sent', async () => {
    gw = await startFakeGateway();
    const err = await client(gw.url, {
      credentials: { gateway: { userName: 'merchant', password: 'wrong-pass-9' } },
    })
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayUnauthorizedError);
    expect(gw.state.requests).toHaveLength(0);
    expect(String(err) + JSON.stringify(err)).not.toContain('wrong-pass-9');
  });
  it('uses recurrence and integration credentials and token operations per family', async () => {
    gw = await startFakeGateway((app) => {
      app.get('/v1/refund/list', (c) => c.json({ items: [], totalCount: 0, skip: 0, take: 10 }));
      app.get('/v1/recurrences/plans/:id', (c) => c.json(plan(c.req.param('id'))));
      app.get('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/hook' }));
    });
    const gc = client(gw.url, {
      credentials: {
        gateway: { userName: 'gw-user', password: PASSWORD },
        recurrence: { userName: 'rec-user', password: PASSWORD },
        integration: { userName: 'int-user', password: PASSWORD },
      },
    });
    await gc.listRefunds();
    await gc.getPlan('plan-1');
    await gc.getWebhook({ accountNumber: '1001' });
    expect(gw.state.tokenRequests).toEqual([
      { path: '/api/auth/token', userName: 'gw-user' },
      { path: '/api/auth/token', userName: 'rec-user' },
      { path: '/api/authentication/login', userName: 'int-user' },
    ]);
  });

  it('recurrence and integration fall back to the gateway credentials', async () => {
    gw = await startFakeGateway((app) => {
      app.get('/v1/recurrences/plans/:id', (c) => c.json(plan(c.req.param('id'))));
      app.get('/api/webhooks/subscriptions', (c) => c.json({ url: 'https://m.example/hook' }));
    });
    const gc = client(gw.url);
    await gc.getPlan('p');
    await gc.getWebhook({ accountNumber: '1001' });
    expect(gw.state.tokenRequests).toEqual([
      { path: '/api/auth/token', userName: 'merchant' },
      { path: '/api/authentication/login', userName: 'merchant' },
    ]);
  });
});

describe('createGatewayClient: time and network', () => {
  it('a gateway that never answers is a GatewayTimeoutError with sent = true', async () => {
    gw = await startFakeGateway((app) => app.post('/v1/payments', () => new Promise(() => {})));
    const gc = client(gw.url);
    await gc.getPublicKey().catch(() => undefined); // token cached: the clock is the payment's
    const err = await gc.createCreditPayment(credit, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(true);
    expect((err as GatewayTimeoutError).timeoutMs).toBe(300);
    expect(paymentRequests(gw.state)).toHaveLength(1);
  });

  it('a token operation that never answers times the call out with sent = false', async () => {
    gw = await startFakeGateway();
    gw.state.tokenHang = true;
    const err = await client(gw.url, { timeoutMs: 300 })
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(false);
    expect(gw.state.requests).toHaveLength(0);
  });

  it('a closed port is a GatewayNetworkError with sent = false', async () => {
    const server = await listen(new Hono());
    const url = server.url;
    await server.close();
    const err = await client(url)
      .getPublicKey()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect((err as GatewayNetworkError).sent).toBe(false);
  });

  it('a connection dropped after the request was sent is a GatewayNetworkError with sent = true', async () => {
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments', (c) => {
        const req = (c.env as { incoming?: { socket?: { destroy(): void } } }).incoming;
        req?.socket?.destroy();
        return new Promise(() => {});
      }),
    );
    const err = await client(gw.url)
      .createCreditPayment(credit)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect((err as GatewayNetworkError).sent).toBe(true);
  });
});
