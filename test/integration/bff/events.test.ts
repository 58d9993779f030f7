import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutEvent, EventWithDelivery, ListPage } from '../../../contract/events';
import type { PayResult } from '../../../server/bff/checkout-api';
import { eventDeliveryOf, GIVE_UP_AFTER_MS } from '../../../server/bff/events/delivery';
import { expireDueSessions } from '../../../server/bff/sessions/service';
import { recordBillingEvents } from '../../../server/bff/subscriptions/billing-events';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  apiError,
  startBff,
  type TestBff,
} from '../../support/bff';
import {
  EVENTS_SECRET,
  startEventReceiver,
  type EventReceiver,
} from '../../support/event-receiver';

// Issue 10 §1: each event type from the real flow that causes it, delivered signed to a real
// local receiver and verified there with the standardwebhooks package.
let t: TestBff;
let receiver: EventReceiver;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

beforeAll(async () => {
  receiver = await startEventReceiver();
  t = await startBff({
    config: {
      payRateLimitPerMinute: 10_000,
      maxAttempts: 2,
      eventsUrl: receiver.url,
      eventsSecret: EVENTS_SECRET,
    },
  });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const delivery = () => eventDeliveryOf(t.bff.ctx)!;

async function until<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The one event of a type about a session (or subscription) that reached the receiver. */
const receivedFor = (type: string, key: (e: CheckoutEvent) => boolean) =>
  until(() => receiver.received.find((e) => e.type === type && key(e)));
const ofSession = (id: string) => (e: CheckoutEvent) =>
  (e.data as { id?: string; sessionId?: string }).id === id ||
  (e.data as { sessionId?: string }).sessionId === id;

async function paySession(number: string, body: Record<string, unknown> = { amount: 7_300 }) {
  const s = await t.createSession(body);
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, number, { method: 'credit' }),
  );
  return { session: s, result: res.body as PayResult };
}

async function createPlan(name: string): Promise<string> {
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      name,
      description: name,
      paymentMethod: 'CreditCard',
      amount: 19.9,
      planType: 'Monthly',
    },
  });
  expect(res.status).toBe(200);
  return res.body as string;
}

describe('events of the real flows, delivered signed', () => {
  it('checkout_session.succeeded carries the session, its payment and the metadata', async () => {
    const { session, result } = await paySession('4000000000002701', {
      amount: 7_300,
      metadata: { orderId: 'A-1001', channel: 'web' },
    });
    expect(result.status).toBe('succeeded');
    const event = await receivedFor('checkout_session.succeeded', ofSession(session.id));
    expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(event.data).toMatchObject({
      id: session.id,
      status: 'succeeded',
      amount: 7_300,
      currency: 'BRL',
      metadata: { orderId: 'A-1001', channel: 'web' },
      payment: {
        paymentId: (result as unknown as { payment: { paymentId: string } }).payment.paymentId,
        currency: 'BRL',
      },
    });
    // Nothing secret travels: no client secret, no card beyond the last four.
    const text = JSON.stringify(event);
    expect(text).not.toContain(session.clientSecret);
    expect(text).not.toContain('4000000000002701');
  });

  it('checkout_session.failed once the attempts are used up', async () => {
    const s = await t.createSession({ amount: 1_200 });
    for (let i = 0; i < 2; i++) {
      await t.pay(
        s.clientSecret,
        await t.payBody(s.clientSecret, '4000000000000002', { method: 'credit' }),
      );
    }
    const event = await receivedFor('checkout_session.failed', ofSession(s.id));
    expect(event.data).toMatchObject({ status: 'failed', failureCode: 'attempts_exhausted' });
  });

  it('checkout_session.expired by POST …/expire (idempotent) and by the clock', async () => {
    const s = await t.createSession({ amount: 500 });
    const headers = { ...merchant, 'idempotency-key': `expire-${s.id}` };
    const first = await t.request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: s.id, status: 'expired' });
    const again = await t.request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    await receivedFor('checkout_session.expired', ofSession(s.id));

    // Nobody reads this one: the maintenance round expires it when its time is up.
    const timed = await t.createSession({ amount: 600, expiresInSeconds: 60 });
    t.clock.advance(61_000);
    try {
      expect(await expireDueSessions(t.bff.ctx)).toBeGreaterThanOrEqual(1);
      await delivery().idle();
      await delivery().deliverDue();
    } finally {
      t.clock.reset(0);
    }
    await receivedFor('checkout_session.expired', ofSession(timed.id));
    expect(
      receiver.received.filter((e) => e.type === 'checkout_session.expired' && ofSession(s.id)(e)),
    ).toHaveLength(1);
  });

  it('a session that is paid cannot be expired: 409 conflict_error', async () => {
    const { session } = await paySession('4000000000002701');
    const res = await t.request('POST', `/v1/checkout-sessions/${session.id}/expire`, {
      headers: merchant,
    });
    expect(res.status).toBe(409);
    expect(apiError(res)).toMatchObject({
      type: 'conflict_error',
      code: 'conflict',
      param: 'status',
    });
  });

  it('payment.canceled once the gateway canceled the payment (confirmed notice)', async () => {
    const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;
    const reg = await t.sandbox.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
      token: await t.sandbox.token('integration'),
      body: { url: `${t.url}/webhooks/gateway`, basicAuth: basic.slice(6) },
    });
    expect(reg.status).toBe(200);
    const { session, result } = await paySession('4000000000002701');
    const paymentId = (result as unknown as { payment: { paymentId: string } }).payment.paymentId;
    const ctl = (path: string, body: unknown) =>
      t.sandbox
        .call('POST', `/__sandbox${path}`, { token: null, body })
        .then((r) => r.body as { id: string });
    const open = await ctl('/cancellation-requests', { paymentId, description: 'x' });
    await ctl(`/cancellation-requests/${open.id}/decide`, { status: 'APROVADO' });
    await ctl(`/cancellation-requests/${open.id}/decide`, { status: 'CANCELADO' });
    const event = await receivedFor('payment.canceled', ofSession(session.id));
    expect(event.data).toMatchObject({
      paymentId,
      sessionId: session.id,
      amount: 7_300,
      currency: 'BRL',
    });
  });

  it('subscription.created, billing.paid, then subscription.canceled by POST …/cancel', async () => {
    const planId = await createPlan('Events monthly');
    const { session, result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    expect(result.status).toBe('succeeded');
    const created = await receivedFor('subscription.created', ofSession(session.id));
    const subscriptionId = (created.data as { id: string }).id;
    expect(created.data).toMatchObject({
      status: 'Active',
      sessionId: session.id,
      plan: { id: planId },
    });
    const paid = await receivedFor('billing.paid', ofSession(session.id));
    expect(paid.data).toMatchObject({
      subscriptionId,
      installment: 1,
      status: 'Paid',
      amount: 1_990,
    });

    const cancel = await t.request('POST', `/v1/subscriptions/${subscriptionId}/cancel`, {
      headers: merchant,
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ id: subscriptionId, status: 'Canceled' });
    const gateway = await t.sandbox.call('GET', `/v1/recurrences/subscriptions/${subscriptionId}`);
    expect((gateway.body as { status: string }).status).toBe('Canceled');
    await receivedFor(
      'subscription.canceled',
      (e) => (e.data as { id: string }).id === subscriptionId,
    );
    // A second cancel answers the same and writes no second event.
    expect(
      (await t.request('POST', `/v1/subscriptions/${subscriptionId}/cancel`, { headers: merchant }))
        .status,
    ).toBe(200);
    await delivery().idle();
    expect(
      receiver.received.filter(
        (e) =>
          e.type === 'subscription.canceled' && (e.data as { id: string }).id === subscriptionId,
      ),
    ).toHaveLength(1);
    const missing = await t.request('POST', '/v1/subscriptions/nope/cancel', { headers: merchant });
    expect(apiError(missing)).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
  });
});

describe('delivery', () => {
  it('a receiver down for a while gets every event once it is up, each once', async () => {
    receiver.mode = 'down';
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push((await paySession('4000000000002701')).session.id);
    await until(() => receiver.requests.filter((r) => r.status === 503).length >= 3);
    await delivery().idle();
    const listed = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=3', {
      headers: merchant,
    });
    const page = listed.body as ListPage<EventWithDelivery>;
    expect(page.data.map((e) => (e.data as { id: string }).id).sort()).toEqual(
      [...sessions].sort(),
    );
    for (const e of page.data) expect(e.delivery).toMatchObject({ status: 'pending', attempts: 1 });
    // Still down at the second try (5 s later): a second failure, the next in a minute.
    t.clock.advance(5_000);
    await delivery().deliverDue();
    receiver.mode = 'ok';
    t.clock.advance(60_000);
    await delivery().deliverDue();
    t.clock.reset(0);
    for (const id of sessions) {
      const got = receiver.received.filter(
        (e) => e.type === 'checkout_session.succeeded' && ofSession(id)(e),
      );
      expect(got).toHaveLength(1);
    }
    const one = page.data[0]!;
    const detail = await t.request('GET', `/v1/events/${one.id}`, { headers: merchant });
    const d = (detail.body as EventWithDelivery).delivery;
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, nextAttemptAt: null });
    expect(d.history!.map((h) => h.status)).toEqual([503, 503, 204]);
    expect(d.history!.map((h) => h.error)).toEqual(['HTTP 503', 'HTTP 503', null]);
  });

  it('gives up after three days (failed), and a redelivery starts a new series', async () => {
    receiver.mode = 'down';
    const { session } = await paySession('4000000000002701');
    const id = await until(async () => {
      const list = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=1', {
        headers: merchant,
      });
      const e = (list.body as ListPage<EventWithDelivery>).data[0];
      return e && (e.data as { id: string }).id === session.id && e.delivery.attempts >= 1
        ? e.id
        : undefined;
    });
    let advanced = 0;
    try {
      for (let i = 0; i < 20 && advanced <= GIVE_UP_AFTER_MS; i++) {
        t.clock.advance(12 * 3_600_000);
        advanced += 12 * 3_600_000;
        await delivery().deliverDue();
      }
      const failed = (await t.request('GET', `/v1/events/${id}`, { headers: merchant }))
        .body as EventWithDelivery;
      expect(failed.delivery.status).toBe('failed');
      expect(failed.delivery.nextAttemptAt).toBeNull();
      receiver.mode = 'ok';
      const headers = { ...merchant, 'idempotency-key': `redeliver-${id}` };
      const redo = await t.request('POST', `/v1/events/${id}/redeliver`, { headers });
      expect(redo.status).toBe(202);
      expect(
        (await t.request('POST', `/v1/events/${id}/redeliver`, { headers })).headers.get(
          'idempotent-replayed',
        ),
      ).toBe('true');
      await until(() => receiver.received.some((e) => e.id === id));
      await delivery().idle();
      const done = (await t.request('GET', `/v1/events/${id}`, { headers: merchant }))
        .body as EventWithDelivery;
      expect(done.delivery.status).toBe('delivered');
      expect(receiver.received.filter((e) => e.id === id)).toHaveLength(1);
    } finally {
      t.clock.reset(0);
      receiver.mode = 'ok';
    }
  });

  it('a redelivery of a delivered event shows no delivery until the new series arrives', async () => {
    const { session } = await paySession('4000000000002701');
    const id = await until(async () => {
      const list = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=1', {
        headers: merchant,
      });
      const e = (list.body as ListPage<EventWithDelivery>).data[0];
      return e && (e.data as { id: string }).id === session.id && e.delivery.status === 'delivered'
        ? e.id
        : undefined;
    });
    receiver.mode = 'down';
    try {
      const redo = await t.request('POST', `/v1/events/${id}/redeliver`, {
        headers: { ...merchant, 'idempotency-key': `redeliver-again-${id}` },
      });
      expect(redo.status).toBe(202);
      const shown = redo.body as EventWithDelivery;
      expect(shown.delivery.status).toBe('pending');
      expect(shown.delivery.deliveredAt).toBeNull();
    } finally {
      receiver.mode = 'ok';
    }
  });

  it('a restart mid-delivery loses nothing: another BFF on the store sends it, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-events-'));
    const file = join(dir, 'bff.sqlite');
    const hanging = await startEventReceiver();
    hanging.mode = 'hang';
    const config = { eventsUrl: hanging.url, eventsSecret: EVENTS_SECRET, eventsTimeoutMs: 60_000 };
    const a = await startBff({ sandbox: t.sandbox, dbUrl: file, config });
    let b: TestBff | undefined;
    try {
      const s = await a.createSession({ amount: 990 });
      const paid = await a.pay(
        s.clientSecret,
        await a.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
      );
      expect((paid.body as PayResult).status).toBe('succeeded');
      // A is sending it and the receiver holds the request; A stops before any answer.
      await until(() => hanging.arrived >= 1);
      await a.close();
      b = await startBff({ sandbox: t.sandbox, dbUrl: file, config });
      // B leaves the event alone while A's claim (twice the timeout) holds…
      await eventDeliveryOf(b.bff.ctx)!.deliverDue();
      expect(hanging.arrived).toBe(1);
      // …then takes it over once the claim lapsed.
      hanging.mode = 'ok';
      b.clock.advance(2 * 60_000 + 1_000);
      await eventDeliveryOf(b.bff.ctx)!.deliverDue();
      expect(hanging.arrived).toBe(2);
      expect(hanging.received.filter((e) => (e.data as { id: string }).id === s.id)).toHaveLength(
        1,
      );
      const list = await b.request('GET', '/v1/events', { headers: merchant });
      const event = (list.body as ListPage<EventWithDelivery>).data[0]!;
      expect(event.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await b?.close();
      await hanging.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

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

describe('billings the gateway charges later', () => {
  it('billing.paid for the next cycle, from the gateway’s billing search, once', async () => {
    const planId = await createPlan('Events cycle');
    const { session, result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    expect(result.status).toBe('succeeded');
    const subscriptionId = (result as unknown as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    // The sandbox's business clock moves a month: the gateway charges the second billing.
    const moved = await t.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 32 },
    });
    expect(moved.status).toBeLessThan(300);
    const second = await until(async () => {
      await recordBillingEvents(t.bff.ctx);
      return receiver.received.find(
        (e) =>
          e.type === 'billing.paid' &&
          (e.data as { subscriptionId: string; installment: number }).subscriptionId ===
            subscriptionId &&
          (e.data as { installment: number }).installment === 2,
      );
    });
    expect(second.data).toMatchObject({ sessionId: session.id, status: 'Paid', currency: 'BRL' });
    // Read again, nothing new: each billing is told once (the first one included).
    expect(await recordBillingEvents(t.bff.ctx)).toBe(0);
    await delivery().idle();
    const paid = receiver.received.filter(
      (e) =>
        e.type === 'billing.paid' &&
        (e.data as { subscriptionId: string }).subscriptionId === subscriptionId,
    );
    expect(paid.map((e) => (e.data as { installment: number }).installment).sort()).toEqual([1, 2]);
  });
});

describe('a later billing the gateway declines', () => {
  it('billing.failed, once, when the card on file is refused at the next cycle', async () => {
    const planId = await createPlan('Events declined cycle');
    const { session, result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    expect(result.status).toBe('succeeded');
    const subscriptionId = (result as unknown as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    // The card on file changes to one the issuer refuses (05), then a month goes by.
    const token = await t.sandbox.token();
    const vaulted = await t.sandbox.call('POST', '/v1/cards/vault', {
      token,
      body: {
        cardInfo: {
          number: '4000000000000002',
          securityCode: '123',
          expirationMonth: '12',
          expirationYear: '39',
          cardholderName: 'ANA SILVA',
        },
      },
    });
    expect(vaulted.status).toBe(200);
    const changed = await t.sandbox.call(
      'POST',
      `/v1/recurrences/subscriptions/${subscriptionId}/vault`,
      { token, body: { vaultId: (vaulted.body as { vaultId: string }).vaultId } },
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await t.sandbox.call('POST', '/__sandbox/clock/advance', { token: null, body: { days: 32 } });
    const failed = await until(async () => {
      await recordBillingEvents(t.bff.ctx);
      return receiver.received.find(
        (e) =>
          e.type === 'billing.failed' &&
          (e.data as { subscriptionId: string }).subscriptionId === subscriptionId,
      );
    });
    expect(failed.data).toMatchObject({ sessionId: session.id, installment: 2, currency: 'BRL' });
    expect(['Denied', 'PaymentInvalid']).toContain((failed.data as { status: string }).status);
    expect(await recordBillingEvents(t.bff.ctx)).toBe(0);
  });
});
