import { describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import { MERCHANT_ORIGIN, apiError, startBff } from '../../support/bff';
import { createPlan, merchant, paySession, t, useEventsBff } from '../../support/events-bff';

// The merchant API's event list (GET /v1/events) and the error object of /v1/* (issue 10).
useEventsBff();

describe('GET /v1/events', () => {
  it('pages newest first with starting_after and ending_before while new events arrive', async () => {
    // A BFF of its own (and without BFF_EVENTS_URL: events are kept and listed, not sent).
    const own = await startBff({ sandbox: t.sandbox, config: { payRateLimitPerMinute: 10_000 } });
    try {
      const list = (query: string) =>
        own
          .request('GET', `/v1/events${query}`, { headers: merchant })
          .then((r) => r.body as ListPage<EventWithDelivery>);
      for (let i = 0; i < 5; i++) {
        const s = await own.createSession({ amount: 100 + i });
        await own.request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers: merchant });
      }
      const p1 = await list('?limit=2');
      expect(p1.data).toHaveLength(2);
      expect(p1.hasMore).toBe(true);
      expect(p1.data[0]!.delivery).toMatchObject({ status: 'none', attempts: 0 });
      const all = p1.data.map((e) => e.id);
      // A new event arrives between pages: it sorts before page one and shifts nothing.
      const late = await own.createSession({ amount: 999 });
      await own.request('POST', `/v1/checkout-sessions/${late.id}/expire`, { headers: merchant });
      let page = p1;
      while (page.hasMore) {
        page = await list(`?limit=2&starting_after=${page.data.at(-1)!.id}`);
        all.push(...page.data.map((e) => e.id));
      }
      expect(all).toHaveLength(5);
      expect([...all].sort().reverse()).toEqual(all);
      const newer = await list(`?ending_before=${p1.data[0]!.id}`);
      expect(newer.data).toHaveLength(1);
      expect((newer.data[0]!.data as { id: string }).id).toBe(late.id);
      const back = await list(`?limit=2&ending_before=${all[4]}`);
      expect(back.data.map((e) => e.id)).toEqual(all.slice(2, 4));
      expect(back.hasMore).toBe(true);
    } finally {
      await own.close();
    }
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?type=charge.refunded', 'type'],
    ['?starting_after=evt_nope', 'starting_after'],
    ['?starting_after=a&ending_before=b', 'ending_before'],
    ['?colour=red', 'body'],
  ])('a bad query %s is a 400 invalid_request_error naming %s', async (query, param) => {
    const res = await t.request('GET', `/v1/events${query}`, { headers: merchant });
    expect(res.status).toBe(400);
    const error = apiError(res);
    expect(error.type).toBe('invalid_request_error');
    if (param !== 'body') expect(error.param).toBe(param);
    else expect(error.code).toBe('parameter_unknown');
  });

  it('an unknown event is a 404 not_found_error; no secret is a 401 authentication_error', async () => {
    expect(
      apiError(await t.request('GET', '/v1/events/evt_nope', { headers: merchant })),
    ).toMatchObject({
      type: 'not_found_error',
      code: 'resource_missing',
      param: 'id',
    });
    expect(apiError(await t.request('GET', '/v1/events'))).toMatchObject({
      type: 'authentication_error',
      code: 'unauthorized',
    });
    expect(
      apiError(await t.request('GET', '/v1/nothing-here', { headers: merchant })),
    ).toMatchObject({
      type: 'not_found_error',
      code: 'route_not_found',
    });
  });
});

describe('the error object of /v1/*', () => {
  it('names the type, a stable code, the param and the request id', async () => {
    const bad = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: -1, origin: MERCHANT_ORIGIN },
    });
    expect(bad.status).toBe(400);
    const e = apiError(bad);
    expect(e).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'amount',
    });
    expect(e.requestId).toBe(bad.headers.get('x-request-id'));
    const meta = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: 100, origin: MERCHANT_ORIGIN, metadata: { k: 'x'.repeat(501) } },
    });
    expect(apiError(meta)).toMatchObject({ type: 'invalid_request_error', param: 'metadata.k' });
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { amount: 100, origin: MERCHANT_ORIGIN, metadata: many },
    });
    expect(apiError(tooMany)).toMatchObject({
      param: 'metadata',
      message: expect.stringMatching(/20 keys/),
    });
    const json = await t.request('POST', '/v1/checkout-sessions', {
      headers: { ...merchant, 'content-type': 'application/json' },
      body: '{"amount":',
    });
    expect(apiError(json)).toMatchObject({
      type: 'invalid_request_error',
      code: 'body_invalid_json',
    });
  });

  it('the gateway down is a 503 gateway_error', async () => {
    const planId = await createPlan('Events gateway down');
    const { result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    const subscriptionId = (result as unknown as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        method: 'GET',
        path: `/v1/recurrences/subscriptions/${subscriptionId}`,
        count: 1,
        status: 503,
      },
    });
    const res = await t.request('GET', '/v1/subscriptions?limit=5', { headers: merchant });
    expect(res.status).toBe(503);
    expect(apiError(res)).toMatchObject({ type: 'gateway_error', code: 'gateway_unavailable' });
  });
});
