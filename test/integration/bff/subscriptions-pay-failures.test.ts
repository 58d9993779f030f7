import { describe, expect, it } from 'vitest';
import { payPlanPending } from '../../support/plan-pay';
import {
  createPlan,
  createSession,
  merchant,
  planId,
  t,
  useSubscriptionsBff,
} from '../../support/subscriptions-bff';

// A plan pay that fails before or while subscribing: the vault, the gateway's 5xx, a plan
// changed or unreadable at pay time.
useSubscriptionsBff();

describe('subscription checkout (planId)', () => {
  it('a card the vault refuses leaves the session open with an attempt used', async () => {
    const created = (await createSession({ planId })).body as { clientSecret: string };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', {
        method: 'credit',
        encryptedCard: Buffer.from('not a ciphertext').toString('base64'),
      }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'invalid_card', retryable: true },
      attemptsLeft: 2,
    });
  });

  it('a 5xx while keeping the card charged nothing: try_again_later, retryable', async () => {
    const created = (await createSession({ planId })).body as { clientSecret: string };
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path: '/v1/cards/vault', count: 1, status: 500 },
    });
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
  });

  it('a 5xx while creating the subscription may have charged: pending', async () => {
    await payPlanPending(t, planId, '4000000000002701', {
      method: 'POST',
      path: '/v1/recurrences/subscriptions',
      status: 500,
    });
  });

  it('a plan whose price changed after the session was made expires the session, unbilled', async () => {
    const fields = { name: 'Reprice monthly', amount: 25, planType: 'Monthly' };
    const repriced = await createPlan(fields);
    const created = (await createSession({ planId: repriced })).body as {
      id: string;
      clientSecret: string;
      amount: number;
    };
    expect(created.amount).toBe(2500);
    // The merchant raises the price (the amount changes only while the plan is not Active).
    const status = (value: string) =>
      t.sandbox.call('POST', `/v1/recurrences/plans/${repriced}/status`, {
        body: { status: value },
      });
    expect((await status('Inactive')).status).toBe(200);
    const { merchantId } = (await t.sandbox.call('GET', `/v1/recurrences/plans/${repriced}`))
      .body as { merchantId: string };
    const update = await t.sandbox.call('POST', `/v1/recurrences/plans/${repriced}`, {
      body: {
        ...fields,
        merchantId,
        amount: 35,
        description: `${fields.name} membership`,
        paymentMethod: 'CreditCard',
      },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect((await status('Active')).status).toBe(200);

    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    // Not a subscription at R$ 35,00 beside a page that said R$ 25,00: start again.
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'expired', attempts: [] });
    const subs = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions?planName=${encodeURIComponent(fields.name)}`,
    );
    expect((subs.body as { total: number }).total).toBe(0);
    // A new session shows the plan as it is now.
    expect(((await createSession({ planId: repriced })).body as { amount: number }).amount).toBe(
      3500,
    );
  });

  it('a plan that cannot be read at pay time sends nothing: the shopper may try again', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const body = await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' });
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'GET', path: `/v1/recurrences/plans/${planId}`, count: 10, status: 500 },
    });
    let res;
    try {
      res = await t.pay(created.clientSecret, body);
    } finally {
      await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    }
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'open', attempts: [] });
  });
});
