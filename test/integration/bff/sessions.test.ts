import { createHash, createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicSession } from '../../../server/bff/checkout-api';
import { handshakeKey } from '../../../server/bff/http/frame-handshake';
import { sessionIdFromSecret } from '../../../widget/protocol/constants';
import { BRAND_TABLE } from '../../../widget/card/brand-table';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  startBff,
  type TestBff,
  apiError,
} from '../../support/bff';

/** A second merchant page allowed to embed the frame. */
const OTHER_ORIGIN = 'http://other-shop.test:3000';
let t: TestBff;
let dist: string;
/** Stands for the frame boot (widget/frame/boot.ts) the build writes into the frame manifest. */
const BOOT = '(function(){self.booted=1})();\n';
beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'bff-dist-'));
  mkdirSync(join(dist, 'widget'));
  mkdirSync(join(dist, 'frame'));
  writeFileSync(join(dist, 'widget', 'card-checkout.js'), 'export {};\n');
  writeFileSync(join(dist, 'widget', 'card-checkout.Bx3k9aQ1.js'), 'export {};\n');
  writeFileSync(join(dist, 'frame', 'card-form.js'), 'export {};\n');
  writeFileSync(
    join(dist, 'frame', 'manifest.json'),
    JSON.stringify({
      file: 'card-form.js',
      hashedFile: 'card-form.0123abcdef.js',
      integrity: 'sha384-AAAA',
      boot: { code: BOOT, hash: `'sha256-${createHash('sha256').update(BOOT).digest('base64')}'` },
    }),
  );
  writeFileSync(join(dist, 'secret.txt'), 'outside the served folders');
  t = await startBff({
    config: { staticDir: dist, allowedOrigins: [MERCHANT_ORIGIN, OTHER_ORIGIN] },
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dist, { recursive: true, force: true });
});

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

describe('POST /v1/checkout-sessions', () => {
  it('creates an open session and answers the client secret once', async () => {
    const res = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: 12_345, origin: MERCHANT_ORIGIN, referenceTransaction: 'order-1' },
    });
    expect(res.status).toBe(201);
    const body = res.body as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'open', amount: 12_345 });
    expect(String(body.id)).toMatch(/^cs_/);
    expect(String(body.clientSecret)).toMatch(new RegExp(`^${String(body.id)}_secret_`));
    // The frame reads the session id back out of the secret.
    expect(sessionIdFromSecret(String(body.clientSecret))).toBe(body.id);
    expect(Date.parse(String(body.expiresAt)) - Date.now()).toBeGreaterThan(29 * 60_000);
    const stored = await t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', String(body.id))
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(String(body.clientSecret));
  });

  it('401 without the merchant secret or with a wrong one', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer sk_wrong_secret_value' },
      { authorization: MERCHANT_SECRET },
    ]) {
      const res = await t.request('POST', '/v1/checkout-sessions', {
        headers,
        body: { amount: 100, origin: MERCHANT_ORIGIN },
      });
      expect(res.status).toBe(401);
      expect(apiError(res)).toMatchObject({
        type: 'authentication_error',
        code: 'unauthorized',
        param: 'Authorization',
      });
    }
  });

  it.each([
    [{ amount: 0, origin: MERCHANT_ORIGIN }, 'amount'],
    [{ amount: 1.5, origin: MERCHANT_ORIGIN }, 'amount'],
    [{ origin: MERCHANT_ORIGIN }, 'amount'],
    [{ amount: 100, origin: 'not a url' }, 'origin'],
    [{ amount: 100, origin: 'https://evil.example' }, 'origin'],
    [{ amount: 100, origin: `${MERCHANT_ORIGIN}/checkout` }, 'origin'],
    [{ amount: 100, origin: MERCHANT_ORIGIN, maxInstallments: 13 }, 'maxInstallments'],
    [{ amount: 100, origin: MERCHANT_ORIGIN, methods: ['pix'] }, 'methods.0'],
    [{ amount: 100, origin: MERCHANT_ORIGIN, planId: 'plan-1' }, 'amount'],
    [{ amount: 100, origin: MERCHANT_ORIGIN, status: 'succeeded' }, 'body'],
    // Half an emoji: a UTF-8 store would keep U+FFFD, not what the gateway was sent.
    [
      { amount: 100, origin: MERCHANT_ORIGIN, referenceTransaction: 'order-\ud83d' },
      'referenceTransaction',
    ],
  ])('400 naming the field %#', async (body, tag) => {
    const res = await t.request('POST', '/v1/checkout-sessions', { headers: merchant, body });
    expect(res.status).toBe(400);
    expect(apiError(res)).toMatchObject({ type: 'invalid_request_error' });
    expect(apiError(res).message).toContain(`${tag}: `);
  });

  it('415 for a body that is not JSON', async () => {
    const res = await t.request('POST', '/v1/checkout-sessions', {
      headers: { ...merchant, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=100',
    });
    expect(res.status).toBe(415);
  });
});

describe('GET /v1/checkout-sessions', () => {
  it('reads one session with its attempts, and lists newest first with a bound', async () => {
    const a = await t.createSession({ amount: 111 });
    t.clock.advance(5); // distinct creation instants: the list orders by them
    const b = await t.createSession({ amount: 222 });
    const one = await t.request('GET', `/v1/checkout-sessions/${a.id}`, { headers: merchant });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: a.id,
      status: 'open',
      amount: 111,
      attempts: [],
      payment: null,
    });
    const list = await t.request('GET', '/v1/checkout-sessions?limit=2', { headers: merchant });
    expect(list.status).toBe(200);
    const ids = (list.body as { data: { id: string }[] }).data.map((s) => s.id);
    expect(ids).toEqual([b.id, a.id]);
    const bad = await t.request('GET', '/v1/checkout-sessions?limit=1000', { headers: merchant });
    expect(bad.status).toBe(400);
    const filtered = await t.request('GET', '/v1/checkout-sessions?status=succeeded', {
      headers: merchant,
    });
    expect((filtered.body as { data: unknown[] }).data).toEqual([]);
    const missing = await t.request('GET', '/v1/checkout-sessions/cs_nope', { headers: merchant });
    expect(missing.status).toBe(404);
    const anon = await t.request('GET', `/v1/checkout-sessions/${a.id}`);
    expect(anon.status).toBe(401);
  });

  it('an open session past its expiry reads as expired', async () => {
    const s = await t.createSession({ expiresInSeconds: 60 });
    t.clock.advance(61_000);
    const one = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    expect(one.body).toMatchObject({ status: 'expired', failureCode: 'session_expired' });
  });

  it('lists as open only the sessions still payable, unread ones past their time left out', async () => {
    const due = await t.createSession({ expiresInSeconds: 60 });
    const live = await t.createSession({ expiresInSeconds: 3_600 });
    t.clock.advance(61_000);
    try {
      const list = await t.request('GET', '/v1/checkout-sessions?status=open&limit=100', {
        headers: merchant,
      });
      const shown = (list.body as { data: { id: string; status: string }[] }).data;
      expect(shown.every((x) => x.status === 'open')).toBe(true);
      expect(shown.map((x) => x.id)).toContain(live.id);
      expect(shown.map((x) => x.id)).not.toContain(due.id);
    } finally {
      t.clock.reset(0);
    }
  });
});

describe('GET /checkout/frame', () => {
  it('serves the card form page framed only by the session origin, one inline script by hash', async () => {
    const s = await t.createSession();
    const res = await t.request('GET', `/checkout/frame?session=${s.id}&locale=en`, {
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`frame-ancestors ${MERCHANT_ORIGIN}`);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.text).toContain(
      '<script type="module" src="/frame/card-form.0123abcdef.js" integrity="sha384-AAAA"></script>',
    );
    // Scripts without a src: the form's JSON data (texts, styles), never run, and the boot,
    // the one inline script the CSP allows, by the hash of its exact text.
    expect(res.text.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toEqual([
      '<script type="application/json" id="card-form-data">',
      '<script>',
    ]);
    expect(res.text).toContain(`<script>${BOOT}</script>`);
    const hash = createHash('sha256').update(BOOT).digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(res.text).toContain('"cardNumber":"Card number"');
    expect(res.text).toContain('lang="en"');
    expect(res.text).not.toContain('_secret_');
    expect(res.headers.get('permissions-policy')).toContain('payment=(self)');
  });

  it('stores the frame page Accept header only when the frame sends its seal with the secret', async () => {
    const s = await t.createSession();
    const stored = async (id = s.id) =>
      (
        await t.bff.ctx.db
          .selectFrom('checkout_sessions')
          .select('frame_accept')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).frame_accept;
    const accept = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';
    const page = await t.request('GET', `/checkout/frame?session=${s.id}`, { headers: { accept } });
    const seal = /<meta name="checkout-handshake" content="([^"]+)">/.exec(page.text)?.[1];
    expect(seal).toBeTruthy();
    // The unauthenticated GET alone writes nothing.
    expect(await stored()).toBeNull();
    await t.frame(s.clientSecret, 'GET', '/checkout/api/session', {
      headers: { 'checkout-handshake': seal! },
    });
    expect(await stored()).toBe(accept);
    // Anyone who knows the session id may load the page again: nothing changes.
    const hostile = await t.request('GET', `/checkout/frame?session=${s.id}`, {
      headers: { accept: 'text/evil' },
    });
    expect(hostile.status).toBe(200);
    expect(await stored()).toBe(accept);
    // A seal made for another merchant page's session, or forged, is ignored with the secret.
    const sealOf = async (id: string, pageAccept: string) =>
      /<meta name="checkout-handshake" content="([^"]+)">/.exec(
        (
          await t.request('GET', `/checkout/frame?session=${id}`, {
            headers: { accept: pageAccept },
          })
        ).text,
      )![1]!;
    const elsewhere = await t.createSession({ origin: OTHER_ORIGIN });
    for (const bad of [
      await sealOf(elsewhere.id, 'text/other'),
      `${Buffer.from('text/evil').toString('base64url')}.${s.id}.${'A'.repeat(43)}`,
    ]) {
      await t.frame(s.clientSecret, 'GET', '/checkout/api/session', {
        headers: { 'checkout-handshake': bad },
      });
    }
    expect(await stored()).toBe(accept);

    // The same page's frame renewed in place with a new session (the first expired): its
    // page's seal still speaks for it, as the new session's 3-D Secure device data.
    const renewed = await t.createSession();
    await t.frame(renewed.clientSecret, 'GET', '/checkout/api/session', {
      headers: { 'checkout-handshake': seal! },
    });
    expect(await stored(renewed.id)).toBe(accept);

    // A page served before seals named their session (value and MAC only): still its own.
    const older = await t.createSession();
    const legacyAccept = 'text/html;q=0.9';
    const legacy = `${Buffer.from(legacyAccept).toString('base64url')}.${createHmac(
      'sha256',
      handshakeKey(MERCHANT_SECRET),
    )
      .update(`${older.id}\n${legacyAccept}`)
      .digest('base64url')}`;
    await t.frame(older.clientSecret, 'GET', '/checkout/api/session', {
      headers: { 'checkout-handshake': legacy },
    });
    expect(await stored(older.id)).toBe(legacyAccept);
  });

  it('the frame page carries the brand symbols itself: no sprite file to fetch', async () => {
    const s = await t.createSession();
    const page = await t.request('GET', `/checkout/frame?session=${s.id}`);
    const json = /id="card-form-data">([^<]*)<\/script>/.exec(page.text)?.[1] ?? 'null';
    const data = JSON.parse(json) as { sprite: string };
    for (const id of ['visa', 'mastercard', 'amex', 'elo', 'hipercard']) {
      expect(data.sprite).toContain(`<symbol id="${id}" viewBox="0 0 32 20">`);
    }
    expect((await t.request('GET', '/checkout/assets/brands.0000000000.svg')).status).toBe(404);
  });

  it("the frame page carries the brands' table the frame detects brands with", async () => {
    const s = await t.createSession();
    const page = await t.request('GET', `/checkout/frame?session=${s.id}`);
    const json = /id="card-form-data">([^<]*)<\/script>/.exec(page.text)?.[1] ?? 'null';
    expect((JSON.parse(json) as { brands: unknown }).brands).toEqual(BRAND_TABLE);
  });

  it('answers a 404 page for an unknown session', async () => {
    const res = await t.request('GET', '/checkout/frame?session=cs_unknown');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('frame API', () => {
  it('GET /checkout/api/session answers the public view with the client secret', async () => {
    const s = await t.createSession({ amount: 5000, maxInstallments: 3, methods: ['credit'] });
    const res = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(res.status).toBe(200);
    const body = res.body as PublicSession;
    expect(body).toEqual({
      id: s.id,
      status: 'open',
      amount: 5000,
      currency: 'BRL',
      methods: ['credit'],
      maxInstallments: 3,
      attemptsLeft: 3,
      expiresAt: s.expiresAt,
    });
  });

  it('401 for a missing, wrong or other-session secret; no cookies set', async () => {
    const s = await t.createSession();
    const wrong = s.clientSecret.replace(/.$/, (ch) => (ch === '0' ? '1' : '0'));
    for (const headers of [
      {},
      { authorization: `Bearer ${wrong}` },
      { authorization: `Bearer ${s.id}` },
    ]) {
      const res = await t.request('GET', '/checkout/api/session', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a cross-origin browser request, accepts the BFF origin', async () => {
    const s = await t.createSession();
    const evil = await t.frame(s.clientSecret, 'GET', '/checkout/api/session', {
      headers: { origin: MERCHANT_ORIGIN },
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    const own = await t.frame(s.clientSecret, 'GET', '/checkout/api/session', {
      headers: { origin: new URL(t.url).origin },
    });
    expect(own.status).toBe(200);
  });

  it('413 for an oversized body', async () => {
    const s = await t.createSession();
    const res = await t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
      headers: { 'idempotency-key': 'idem-12345678' },
      body: { method: 'credit', encryptedCard: 'A'.repeat(40_000) },
    });
    expect(res.status).toBe(413);
  });

  it('415 for a pay body that is not JSON', async () => {
    const s = await t.createSession();
    const res = await t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'idem-12345678' },
      body: 'method=credit',
    });
    expect(res.status).toBe(415);
  });
});

describe('static bundles and health', () => {
  it('serves the widget with CORS, content type and cache rules', async () => {
    const stable = await t.request('GET', '/widget/card-checkout.js');
    expect(stable.status).toBe(200);
    expect(stable.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(stable.headers.get('access-control-allow-origin')).toBe('*');
    expect(stable.headers.get('cache-control')).not.toContain('immutable');
    const hashed = await t.request('GET', '/widget/card-checkout.Bx3k9aQ1.js');
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const frame = await t.request('GET', '/frame/card-form.js');
    expect(frame.status).toBe(200);
  });

  it('404 for missing files and paths out of the folder', async () => {
    expect((await t.request('GET', '/widget/nope.js')).status).toBe(404);
    expect((await t.request('GET', '/widget/..%2fsecret.txt')).status).toBe(404);
    expect((await t.request('GET', '/widget/%2e%2e/secret.txt')).status).toBe(404);
  });

  it('healthz answers; every answer carries a request id, echoing a given one', async () => {
    const res = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'req-abc-123' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBe('req-abc-123');
    const other = await t.request('GET', '/healthz');
    expect(other.headers.get('x-request-id')).toMatch(/^req_/);
    expect(t.logs.some((l) => l.includes('"requestId":"req-abc-123"'))).toBe(true);
  });

  it('API answers carry their request id, nosniff and no-store, success or not', async () => {
    const s = await t.createSession();
    const headers = { 'x-request-id': 'req-pay-0001' };
    const paid = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const refused = await t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
      body: {},
      headers: { ...headers, 'idempotency-key': 'idem-bad-body-1' },
    });
    const created = await t.request('POST', '/v1/checkout-sessions', {
      headers: { ...headers, authorization: `Bearer ${MERCHANT_SECRET}` },
      body: { amount: 1_000, origin: MERCHANT_ORIGIN },
    });
    for (const res of [paid, refused, created]) {
      expect(res.headers.get('x-request-id')).toMatch(/^req/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect([paid.status, refused.status, created.status]).toEqual([200, 400, 201]);
    expect(refused.headers.get('x-request-id')).toBe('req-pay-0001');
  });
});

describe('readiness', () => {
  it('readyz checks the store and a gateway call with a token', async () => {
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', gateway: 'ok' } });
  });

  it('readyz answers 503 naming the gateway when its credentials are refused', async () => {
    const { createGatewayClient } = await import('../../../server/gateway/client');
    const broken = await startBff({
      sandbox: t.sandbox,
      deps: {
        gateway: createGatewayClient({
          gatewayBaseUrl: t.sandbox.url,
          credentials: { gateway: { userName: 'sandbox', password: 'wrong' } },
        }),
      },
    });
    try {
      const res = await broken.request('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: 'not_ready',
        checks: { database: 'ok', gateway: 'failing' },
      });
      const logs = broken.logs.join('\n');
      expect(logs).not.toContain('"wrong"');
    } finally {
      await broken.close();
    }
  });
});

describe('public key', () => {
  it('is read from the gateway once per TTL, whatever the number of frames', async () => {
    const { createGatewayClient } = await import('../../../server/gateway/client');
    const real = createGatewayClient({
      gatewayBaseUrl: t.sandbox.url,
      credentials: { gateway: { userName: 'sandbox', password: 'sandbox' } },
    });
    let calls = 0;
    const counting = {
      ...real,
      getPublicKey: (...args: Parameters<typeof real.getPublicKey>) => {
        calls++;
        return real.getPublicKey(...args);
      },
    };
    const other = await startBff({ sandbox: t.sandbox, deps: { gateway: counting } });
    try {
      const s = await other.createSession();
      const answers = await Promise.all(
        [1, 2, 3].map(() => other.frame(s.clientSecret, 'GET', '/checkout/api/public-key')),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect((answers[0]!.body as { key: string }).key).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(calls).toBe(1);
      other.clock.advance(11 * 60_000);
      await other.frame(s.clientSecret, 'GET', '/checkout/api/public-key');
      expect(calls).toBe(2);
      const anon = await other.request('GET', '/checkout/api/public-key');
      expect(anon.status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
