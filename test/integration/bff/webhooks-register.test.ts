import { Hono } from 'hono';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhook } from '../../../server/bff/webhooks/register';
import { createGatewayClient } from '../../../server/gateway/client';
import { createLogger, silentLogger } from '../../../server/lib/logging';
import { listen } from '../../support/servers';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('registering the BFF receiver with the gateway at start', () => {
  it('sets <publicUrl>/webhooks/gateway with the receiver credentials, through the client', async () => {
    const gateway = createGatewayClient({
      gatewayBaseUrl: sb.url,
      integrationBaseUrl: sb.url,
      credentials: { gateway: { userName: 'sandbox', password: 'sandbox' } },
    });
    const lines: string[] = [];
    const logger = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    // The gateway checks the URL is reachable, so the "BFF" must listen there.
    const bff = await listen(new Hono().post('/webhooks/gateway', (c) => c.body(null, 200)));
    const ok = await registerWebhook(gateway, {
      publicUrl: `${bff.url}/`,
      accountNumber: '1001',
      user: 'gateway',
      password: 'hook-pass',
      logger,
    });
    expect(ok).toBe(true);
    const res = await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001');
    expect(res.body).toEqual({ url: `${bff.url}/webhooks/gateway` });
    await bff.close();
    const sealed = await sb.sandbox.ctx.db
      .selectFrom('webhook_subscriptions')
      .select('basic_auth_enc')
      .executeTakeFirstOrThrow();
    expect(sealed.basic_auth_enc).not.toContain(
      Buffer.from('gateway:hook-pass').toString('base64'),
    );
    expect(lines.join('')).not.toContain('hook-pass');
    expect(lines.join('')).not.toContain(Buffer.from('gateway:hook-pass').toString('base64'));
  });

  it('retries with backoff and gives up without throwing', async () => {
    let calls = 0;
    const pauses: number[] = [];
    const ok = await registerWebhook(
      {
        setWebhook: () => {
          calls++;
          return Promise.reject(new Error('connect ECONNREFUSED'));
        },
      },
      {
        publicUrl: 'http://localhost:3001',
        accountNumber: '1001',
        user: 'u',
        password: 'p',
        logger: silentLogger,
        attempts: 4,
        delayMs: 100,
        sleep: (ms) => {
          pauses.push(ms);
          return Promise.resolve();
        },
      },
    );
    expect(ok).toBe(false);
    expect(calls).toBe(4);
    expect(pauses).toEqual([100, 200, 400]);
  });
});
