import { describe, expect, it } from 'vitest';
import { expireDueSessions } from '../../../server/bff/sessions/service';
import { apiError } from '../../support/bff';
import {
  createPlan,
  delivery,
  merchant,
  ofSession,
  paySession,
  receivedFor,
  receiver,
  t,
  useEventsBff,
} from '../../support/events-bff';

// Issue 10 §1: each event type from the real flow that causes it, delivered signed to a real
// local receiver and verified there with the standardwebhooks package. Also:
// events-delivery.test.ts (retries, give-up, redelivery, restarts), events-api.test.ts
// (GET /v1/events and the error object), events-later-billings.test.ts (billings after the
// first).
useEventsBff();

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
