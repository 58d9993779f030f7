import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { createMerchantApiClient } from '../../../server/bff/client';
import { MERCHANT_OPERATIONS } from '../../../server/bff/openapi/document';
import { MERCHANT_SECRET, startBff, type HttpAnswer, type TestBff } from '../../support/bff';
import {
  EVENTS_SECRET,
  startEventReceiver,
  type EventReceiver,
} from '../../support/event-receiver';

// Issue 10 §3: the merchant API described in OpenAPI 3.1, generated from the routes' schemas.
let t: TestBff;
let receiver: EventReceiver;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

beforeAll(async () => {
  receiver = await startEventReceiver();
  t = await startBff({
    config: { payRateLimitPerMinute: 10_000, eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET },
  });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
  components: { schemas: Record<string, unknown> };
};

async function doc(): Promise<Doc> {
  const res = await fetch(`${t.url}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

describe('the merchant API in OpenAPI 3.1', () => {
  it('is valid OpenAPI 3.1, public, and listed on /docs', async () => {
    const d = await doc();
    const validator = new Validator();
    const result = await validator.validate(d as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(validator.version).toBe('3.1');
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const text = await page.text();
    for (const o of MERCHANT_OPERATIONS) expect(text).toContain(o.operationId);
  });

  it('documents every /v1 route the BFF serves, and nothing else', async () => {
    const served = new Set(
      t.bff.app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/'))
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(
      Object.entries((await doc()).paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('real answers match the documented schemas (successes and errors)', async () => {
    const d = await doc();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const check = (method: string, path: string, res: HttpAnswer) => {
      const content = d.paths[path]?.[method]?.responses[String(res.status)]?.content as
        { 'application/json': { schema: Record<string, unknown> } } | undefined;
      expect(content, `${method} ${path} ${res.status} documented`).toBeDefined();
      const validate = ajv.compile({
        ...content!['application/json'].schema,
        components: d.components,
      });
      expect(
        validate(res.body),
        `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`,
      ).toBe(true);
    };
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, path, { headers: merchant, ...(body === undefined ? {} : { body }) });

    // The check can fail: an empty object is neither a session nor an error.
    const schema = (
      d.paths['/v1/checkout-sessions/{id}']!.get!.responses['200']!.content as {
        'application/json': { schema: object };
      }
    )['application/json'].schema;
    expect(ajv.compile({ ...schema, components: d.components })({})).toBe(false);

    const created = await call('POST', '/v1/checkout-sessions', {
      amount: 2_500,
      origin: 'http://shop.test:3000',
      metadata: { orderId: '42' },
    });
    check('post', '/v1/checkout-sessions', created);
    const s = created.body as { id: string; clientSecret: string };
    const paid = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect((paid.body as PayResult).status).toBe('succeeded');
    check('get', '/v1/checkout-sessions/{id}', await call('GET', `/v1/checkout-sessions/${s.id}`));
    check('get', '/v1/checkout-sessions', await call('GET', '/v1/checkout-sessions?limit=3'));
    check(
      'post',
      '/v1/checkout-sessions/{id}/expire',
      await call('POST', `/v1/checkout-sessions/${s.id}/expire`),
    );
    const open = await t.createSession({ amount: 300 });
    check(
      'post',
      '/v1/checkout-sessions/{id}/expire',
      await call('POST', `/v1/checkout-sessions/${open.id}/expire`),
    );
    check('get', '/v1/checkout-sessions/{id}', await call('GET', '/v1/checkout-sessions/cs_nope'));
    check(
      'post',
      '/v1/checkout-sessions',
      await call('POST', '/v1/checkout-sessions', { amount: 0 }),
    );
    const events = await call('GET', '/v1/events?limit=5');
    check('get', '/v1/events', events);
    const id = (events.body as { data: { id: string }[] }).data[0]!.id;
    check('get', '/v1/events/{id}', await call('GET', `/v1/events/${id}`));
    check('post', '/v1/events/{id}/redeliver', await call('POST', `/v1/events/${id}/redeliver`));
    check('get', '/v1/subscriptions', await call('GET', '/v1/subscriptions?limit=2'));
    check(
      'post',
      '/v1/subscriptions/{id}/cancel',
      await call('POST', '/v1/subscriptions/nope/cancel'),
    );
    check(
      'get',
      '/v1/webhook-notifications',
      await call('GET', '/v1/webhook-notifications?limit=2'),
    );
    check('get', '/v1/events', await t.request('GET', '/v1/events'));
    // A body the route never reads: too large, or not JSON.
    const big = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: {
        amount: 100,
        origin: 'http://shop.test:3000',
        metadata: { note: 'x'.repeat(40_000) },
      },
    });
    expect(big.status).toBe(413);
    check('post', '/v1/checkout-sessions', big);
    const form = await t.request('POST', '/v1/checkout-sessions', {
      headers: { ...merchant, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=100',
    });
    expect(form.status).toBe(415);
    check('post', '/v1/checkout-sessions', form);
  });
});

describe('the typed merchant client (openapi-fetch over the generated types)', () => {
  it('creates, reads and pages sessions, and hands back the error object', async () => {
    const api = createMerchantApiClient({ bffUrl: t.url, merchantSecret: MERCHANT_SECRET });
    const created = await api.POST('/v1/checkout-sessions', {
      body: { amount: 1_234, origin: 'http://shop.test:3000', metadata: { cart: 'c-9' } },
      params: { header: { 'Idempotency-Key': 'typed-client-1' } },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    const read = await api.GET('/v1/checkout-sessions/{id}', { params: { path: { id } } });
    expect(read.data).toMatchObject({
      id,
      amount: 1_234,
      currency: 'BRL',
      metadata: { cart: 'c-9' },
    });
    const page = await api.GET('/v1/checkout-sessions', { params: { query: { limit: 1 } } });
    expect(page.data!.data[0]!.id).toBe(id);
    const missing = await api.GET('/v1/checkout-sessions/{id}', {
      params: { path: { id: 'cs_none' } },
    });
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({
      error: { type: 'not_found_error', code: 'resource_missing' },
    });
  });
});
