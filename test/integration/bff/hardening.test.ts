import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_SECRET, startBff, type TestBff, apiError } from '../../support/bff';

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(async () => {
  await t?.close();
});

/** A body sent with `Transfer-Encoding: chunked` (no Content-Length), in 1 KiB chunks. */
function chunked(totalBytes: number): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  let sent = 0;
  return {
    duplex: 'half',
    body: new ReadableStream({
      pull(ctl) {
        if (sent >= totalBytes) return ctl.close();
        sent += 1024;
        ctl.enqueue(new Uint8Array(1024).fill(0x61));
      },
    }),
  };
}

describe('no 500 from malformed input', () => {
  it('answers 400 to a malformed percent-encoding under /widget and /frame', async () => {
    for (const path of ['/widget/%ZZ', '/frame/%E0%A4%A', '/widget/a%']) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual([{ tag: 'path', description: expect.stringMatching(/^path: /) }]);
    }
  });

  it('answers 400 to a malformed multipart TermUrl post', async () => {
    for (const body of ['', 'garbage', '--x\r\nContent-Disposition: form-data\r\n\r\n']) {
      const res = await t.request('POST', '/checkout/challenge/ch_unknown/return', {
        body,
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const noBoundary = await t.request('POST', '/checkout/challenge/ch_unknown/return', {
      body: 'a=b',
      headers: { 'content-type': 'multipart/form-data' },
    });
    expect(noBoundary.status).toBe(400);
  });

  it('answers 400 naming the field to a NUL character anywhere (PostgreSQL refuses it)', async () => {
    const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
    for (const path of [
      '/checkout/frame?session=%00',
      '/checkout/challenge/%00',
      '/v1/checkout-sessions/cs_%00',
      '/v1/events?type=%00',
    ]) {
      const res = await t.request('GET', path, { headers: merchant });
      expect(res.status, path).toBe(400);
      expect(JSON.stringify(res.body), path).toContain('url: must not contain a NUL character');
    }
    const created = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: 1_000, origin: 'https://shop.example', metadata: { note: 'a\u0000b' } },
    });
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toContain(
      'metadata.note: must not contain a NUL character',
    );
    const s = await t.createSession();
    const pay = await t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
      body: {
        ...(await t.payBody(s.clientSecret, '4000000000002503')),
        cardholderName: 'MA\u0000RIA',
      },
      headers: { 'idempotency-key': 'idem-nul-000001' },
    });
    expect(pay.status).toBe(400);
    expect(JSON.stringify(pay.body)).toContain('cardholderName: must not contain a NUL character');
    expect((await t.frame(s.clientSecret, 'GET', '/checkout/api/session')).body).toMatchObject({
      status: 'open',
    });
    const notice = await t.request('POST', '/webhooks/gateway', {
      headers: { authorization: `Basic ${Buffer.from('gateway:gateway').toString('base64')}` },
      body: {
        movementId: 990_123,
        nsu: 'a\u0000',
        codAuth: 'X1',
        installmentNumber: 1,
        moment: '2026-05-01T10:00:00.000-03:00',
        type: 'TransactionStatus',
        oldValue: '',
        newValue: 'Authorized',
      },
    });
    expect(notice.status).toBe(400);
    expect(JSON.stringify(notice.body)).toContain('nsu: must not contain a NUL character');
  });

  it('answers 400, not 500, to a JSON body nested 5,000 levels deep', async () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const res = await t.request('POST', '/v1/checkout-sessions', {
      headers: { authorization: `Bearer ${MERCHANT_SECRET}`, 'content-type': 'application/json' },
      body: `{"amount":1000,"origin":"https://shop.example","a":${deep}}`,
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('unknown field(s): a');
  });
});

describe('webhook receiver body limit', () => {
  it('refuses a chunked body over 16 KiB with 413 (no Content-Length to trust)', async () => {
    const res = await fetch(`${t.url}/webhooks/gateway`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('gateway:gateway').toString('base64')}`,
      },
      ...chunked(64 * 1024),
    } as RequestInit);
    expect(res.status).toBe(413);
    // The rest of the upload is not read: the socket must not carry another request.
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual([{ tag: 'body', description: expect.any(String) }]);
  });
});

describe('session creation rate limit', () => {
  it('answers 429 with Retry-After past the per-address limit', async () => {
    const limited = await startBff({
      config: { sessionRateLimitPerMinute: 2 },
      sandbox: t.sandbox,
    });
    try {
      const create = () =>
        limited.request('POST', '/v1/checkout-sessions', {
          headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
          body: { amount: 100, origin: 'http://shop.test:3000' },
        });
      expect((await create()).status).toBe(201);
      expect((await create()).status).toBe(201);
      const third = await create();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(apiError(third)).toMatchObject({
        type: 'rate_limit_error',
        code: 'rate_limited',
        param: 'rate',
        message: expect.stringMatching(/sessions/),
      });
      limited.clock.advance(60_000);
      expect((await create()).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('ids longer than any the store holds', () => {
  it('a keyed POST naming one answers 404, not a 500 (PostgreSQL refuses the key row)', async () => {
    const long = `cs_${'a'.repeat(70)}`;
    for (const path of [
      `/v1/checkout-sessions/${long}/expire`,
      `/v1/subscriptions/${long}/cancel`,
      `/v1/events/${long}/redeliver`,
    ]) {
      const res = await t.request('POST', path, {
        headers: {
          authorization: `Bearer ${MERCHANT_SECRET}`,
          'idempotency-key': 'idem-long-id-0001',
        },
      });
      expect(res.status, path).toBe(404);
    }
  });
});

describe('bank step rate limit', () => {
  it('limits challenge complete and cancel per address, as pay is', async () => {
    // Pay 2 a minute: the bank steps 6 (three times pay's, for an attempt's steps).
    const limited = await startBff({ config: { payRateLimitPerMinute: 2 }, sandbox: t.sandbox });
    try {
      const s = await limited.createSession();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await limited.frame(
          s.clientSecret,
          'POST',
          `/checkout/api/challenge/${i % 2 ? 'cancel' : 'complete'}`,
          {
            body: { challengeId: 'ch_none', encryptedCard: 'x', reason: 'closed' },
            headers: { 'idempotency-key': `idem-step-${i}-0000` },
          },
        );
        statuses.push(res.status);
      }
      // Each one a kept row otherwise: a client secret could fill the store.
      expect(statuses.filter((st) => st === 429)).toHaveLength(2);
      expect(statuses.slice(0, 6).every((st) => st !== 429)).toBe(true);
    } finally {
      await limited.close();
    }
  });
});

describe('client address behind a proxy', () => {
  it('takes the client from the right: a forged left X-Forwarded-For entry does not bypass', async () => {
    // One trusted hop (the proxy on loopback): the client is the last X-Forwarded-For entry.
    const proxied = await startBff({
      config: { payRateLimitPerMinute: 1, trustProxy: 1 },
      sandbox: t.sandbox,
    });
    try {
      const s = await proxied.createSession();
      const from = (xff: string) =>
        proxied.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
          body: { method: 'credit' },
          headers: { 'idempotency-key': 'idem-proxy-01', 'x-forwarded-for': xff },
        });
      expect((await from('1.1.1.1, 203.0.113.7')).status).toBe(400);
      // The attacker rotates the entry it controls; the proxy appends the real address.
      expect((await from('2.2.2.2, 203.0.113.7')).status).toBe(429);
      expect((await from('203.0.113.8')).status).toBe(400);
      expect(proxied.logs.some((l) => l.includes('"proxy.untrusted"'))).toBe(false);
    } finally {
      await proxied.close();
    }
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const direct = await startBff({ config: { payRateLimitPerMinute: 1 }, sandbox: t.sandbox });
    try {
      const s = await direct.createSession();
      const from = (xff: string) =>
        direct.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
          body: { method: 'credit' },
          headers: { 'idempotency-key': 'idem-proxy-02', 'x-forwarded-for': xff },
        });
      expect((await from('198.51.100.1')).status).toBe(400);
      expect((await from('198.51.100.2')).status).toBe(429);
      // Behind a balancer this is a misconfiguration: said once, not per request.
      const warnings = direct.logs.filter((l) => l.includes('"proxy.untrusted"'));
      expect(warnings).toHaveLength(1);
      const line = JSON.parse(warnings[0]!) as { level: number; msg: string };
      expect(line.level).toBe(40);
      expect(line.msg).toMatch(/BFF_TRUST_PROXY/);
    } finally {
      await direct.close();
    }
  });
});

describe('security headers (hono/secure-headers)', () => {
  it('every page and answer carries frame-ancestors, COOP, CORP and Permissions-Policy', async () => {
    const s = await t.createSession();
    const paths: [string, string, number][] = [
      ['GET', `/checkout/frame?session=${s.id}`, 200],
      ['GET', '/checkout/frame?session=cs_nope', 404],
      ['GET', '/checkout/challenge/ch_nope', 404],
      ['POST', '/checkout/challenge/ch_nope', 404],
      ['GET', '/healthz', 200],
      ['GET', '/no/such/route', 404],
      ['GET', '/widget/%ZZ', 400],
    ];
    for (const [method, path, status] of paths) {
      const res = await t.request(method, path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors [^;]+/);
      expect(res.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
      expect(res.headers.get('cross-origin-resource-policy'), path).toBeTruthy();
      expect(res.headers.get('permissions-policy'), path).toContain('camera=()');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      // Plain-HTTP public URL (the test BFF): no HSTS.
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
      // A page the merchant frames (the card form): no origin-keyed cluster (its own process,
      // slow to start); every page that is never framed keeps it.
      const framed = !res.headers
        .get('content-security-policy')!
        .includes("frame-ancestors 'none'");
      expect(framed, path).toBe(path.startsWith('/checkout/frame'));
      expect(res.headers.get('origin-agent-cluster'), path).toBe(framed ? null : '?1');
    }
    const refused = await t.request('POST', '/checkout/challenge/ch_nope/return', {
      body: 'PaRes=x&MD=y',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('sends HSTS when the public URL is https', async () => {
    const https = await startBff({
      config: { publicUrl: 'https://pay.example' },
      sandbox: t.sandbox,
    });
    try {
      const res = await https.bff.app.request('https://pay.example/healthz');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d{7,}/);
    } finally {
      await https.close();
    }
  });
});

describe('readiness', () => {
  it('/readyz reuses its gateway check for a few seconds', async () => {
    const { createGatewayClient } = await import('../../../server/gateway/client');
    const real = createGatewayClient({
      gatewayBaseUrl: t.sandbox.url,
      credentials: { gateway: { userName: 'sandbox', password: 'sandbox' } },
    });
    let calls = 0;
    const counted = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'getPublicKey') {
          return (...args: Parameters<typeof real.getPublicKey>) => {
            calls++;
            return target.getPublicKey(...args);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const probed = await startBff({ sandbox: t.sandbox, deps: { gateway: counted } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => probed.request('GET', '/readyz')),
      );
      for (let i = 0; i < 5; i++) answers.push(await probed.request('GET', '/readyz'));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(calls).toBe(1);
      probed.clock.advance(6_000);
      expect((await probed.request('GET', '/readyz')).status).toBe(200);
      expect(calls).toBe(2);
    } finally {
      await probed.close();
    }
  });

  it('/readyz fails for good once the disk failed to sync the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-eio-'));
    let fail = false;
    const failing = await startBff({
      sandbox: t.sandbox,
      dbUrl: join(dir, 'bff.sqlite'),
      syncWal: () => (fail ? Promise.reject(new Error('EIO: i/o error')) : Promise.resolve()),
    });
    try {
      expect((await failing.request('GET', '/readyz')).status).toBe(200);
      fail = true;
      const refused = await failing.request('POST', '/v1/checkout-sessions', {
        headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
        body: { amount: 1000, origin: 'http://shop.test:3000' },
      });
      expect(refused.status).toBe(500);
      // The disk answers again: nothing written after the failure can be trusted to it.
      fail = false;
      const ready = await failing.request('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ checks: { database: 'failing', gateway: 'ok' } });
    } finally {
      await failing.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
