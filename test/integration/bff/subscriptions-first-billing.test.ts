import { describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import {
  billingStatusOf,
  createPlan,
  createSession,
  merchant,
  payRetryingFirstBilling,
  payWithBillingSearchDown,
  planId,
  t,
  useSubscriptionsBff,
} from '../../support/subscriptions-bff';

// A plan pay's first billing: not readable, trialled, declined, waiting for a retry, and the
// subscriptions listed afterwards (the declined ones included: the list's test comes last).
useSubscriptionsBff();

describe('subscription checkout (planId)', () => {
  it('a first billing that could not be read is not paid: pending until the resolver reads it', async () => {
    // The billing search after the subscription was made fails once; the billing was declined.
    const created = await payWithBillingSearchDown('4000000000000002');
    const session = () =>
      t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant });
    expect((await session()).body).toMatchObject({ status: 'pending' });

    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    const after = (await session()).body as {
      status: string;
      attempts: { id: string; status: string; failureCode: string; subscriptionId: string }[];
    };
    expect(report.resolved).toContain(after.attempts[0]!.id);
    expect(after.status).toBe('open');
    expect(after.attempts[0]).toMatchObject({ status: 'declined', failureCode: 'declined' });
    const sub = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions/${after.attempts[0]!.subscriptionId}`,
    );
    expect(sub.body).toMatchObject({ status: 'Canceled' });
  });

  it('a plan with a trial bills nothing at once: the checkout succeeds with no first billing', async () => {
    const trial = await createPlan({
      name: 'Trial monthly',
      amount: 29.9,
      planType: 'Monthly',
      trialDays: 7,
    });
    const created = (await createSession({ planId: trial })).body as {
      id: string;
      clientSecret: string;
    };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    expect(res.body).toMatchObject({ status: 'succeeded' });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({ status: 'succeeded' });
    expect(
      (detail.body as { payment: { firstBilling?: unknown } }).payment.firstBilling,
    ).toBeFalsy();
  });

  it('without a trial, a first billing the searches do not show is not paid: it stays pending', async () => {
    const created = await payWithBillingSearchDown('4000000000002701');
    // The gateway's billing search does not show it (a busy account: beyond the pages read).
    const gateway = t.bff.ctx.gateway;
    const search = gateway.searchBillings.bind(gateway);
    gateway.searchBillings = () => Promise.resolve({ items: [], total: 0, page: 1, limit: 100 });
    const resolve = () =>
      resolveUnknownAttempts(t.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
      });
    const status = async () =>
      (
        (await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant }))
          .body as { status: string }
      ).status;
    try {
      await resolve();
      // Not taken for a trial: the plan has none, so its first billing was charged at creation.
      expect(await status()).toBe('pending');
    } finally {
      gateway.searchBillings = search;
    }
    await resolve();
    expect(await status()).toBe('succeeded');
  });

  it('a declined first billing fails the attempt and cancels the subscription', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    expect(res.body).toEqual({
      status: 'failed',
      error: { code: 'declined', retryable: true },
      attemptsLeft: 2,
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const attempt = (detail.body as { attempts: { status: string; subscriptionId: string }[] })
      .attempts[0]!;
    expect(attempt.status).toBe('declined');
    const sub = await t.sandbox.call(
      'GET',
      `/v1/recurrences/subscriptions/${attempt.subscriptionId}`,
    );
    expect(sub.body).toMatchObject({ status: 'Canceled' });

    // The shopper may try another card in the same session.
    const again = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '5200000000002235', { method: 'credit' }),
    );
    expect(again.body).toMatchObject({ status: 'succeeded' });
  });

  it('canceling the subscription a declined first billing left tells the merchant nothing', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000009995', { method: 'credit' }),
    );
    const paid = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '5200000000002235', { method: 'credit' }),
    );
    expect(paid.body).toMatchObject({ status: 'succeeded' });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const [declined, live] = (detail.body as { attempts: { subscriptionId: string }[] }).attempts;
    // The merchant tidies up the subscriptions it lists, the declined one among them.
    const res = await t.request('POST', `/v1/subscriptions/${declined!.subscriptionId}/cancel`, {
      headers: merchant,
    });
    expect(res.status).toBe(200);
    const events = await t.request('GET', '/v1/events?type=subscription.canceled&limit=100', {
      headers: merchant,
    });
    const about = (events.body as { data: { data: { id: string; sessionId: string } }[] }).data;
    // No cancel of a subscription never announced, under the session whose live one goes on.
    expect(about.filter((e) => e.data.sessionId === created.id)).toEqual([]);
    expect(live!.subscriptionId).not.toBe(declined!.subscriptionId);
  });

  it('a first billing waiting for a retry (51 with attempts left) reads as insufficient funds', async () => {
    const { planId: retrying, res } = await payRetryingFirstBilling({
      name: 'Retry monthly',
      amount: 19.9,
    });
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'insufficient_funds', retryable: true },
    });
    // Canceling the subscription canceled the billing that waited for its retry.
    expect(await billingStatusOf(retrying)).toBe('Canceled');
  });

  it('a first billing waiting for its retry is canceled itself; until it is, the pay is pending', async () => {
    // The billing cancel fails: canceling the subscription alone may leave it to be retried.
    const {
      planId: retrying,
      created,
      res,
    } = await payRetryingFirstBilling(
      { name: 'Retry billing monthly', amount: 23.9 },
      { path: '/v1/recurrences/billing/*', count: 1 },
    );
    expect(res.body).toEqual({ status: 'pending' });
    expect(await billingStatusOf(retrying)).toBe('Opened');

    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    const after = (
      await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant })
    ).body as { status: string; attempts: { id: string; status: string }[] };
    expect(report.resolved).toContain(after.attempts[0]!.id);
    expect(after).toMatchObject({ status: 'open', attempts: [{ status: 'declined' }] });
    expect(await billingStatusOf(retrying)).toBe('Canceled');
  });

  it('a failed first billing whose subscription cannot be canceled stays pending until it is', async () => {
    // The cancel of the subscription (its status call) fails: the gateway will retry the 51.
    const { created, res } = await payRetryingFirstBilling(
      { name: 'Retry cancel monthly', amount: 21.9 },
      { path: '/v1/recurrences/subscriptions/*', count: 5 },
    );
    // Not "try again": a second subscription would be billed beside the first one's retry.
    expect(res.body).toEqual({ status: 'pending' });
    const detail = async () =>
      (await t.request('GET', `/v1/checkout-sessions/${created.id}`, { headers: merchant }))
        .body as {
        status: string;
        attempts: { id: string; status: string; subscriptionId: string }[];
      };
    const before = await detail();
    expect(before.status).toBe('pending');
    expect(before.attempts[0]).toMatchObject({ status: 'unknown' });
    const subscription = async () =>
      (
        await t.sandbox.call(
          'GET',
          `/v1/recurrences/subscriptions/${before.attempts[0]!.subscriptionId}`,
        )
      ).body as { status: string };
    expect((await subscription()).status).toBe('Active');

    // The maintenance round finds the subscription, cancels it, and the shopper may pay again.
    const report = await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    expect(report.resolved).toContain(before.attempts[0]!.id);
    expect((await subscription()).status).toBe('Canceled');
    const after = await detail();
    expect(after.status).toBe('open');
    expect(after.attempts[0]).toMatchObject({ status: 'declined' });
    const pub = await t.frame(created.clientSecret, 'GET', '/checkout/api/session');
    expect(pub.body).toMatchObject({ status: 'open', attemptsLeft: 2 });
  });

  it('GET /v1/subscriptions lists the subscriptions of the sessions with their billings', async () => {
    const created = (await createSession({ planId })).body as { id: string; clientSecret: string };
    const paid = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const subscriptionId = (paid.body as Extract<PayResult, { status: 'succeeded' }>).payment
      .subscriptionId!;

    expect((await t.request('GET', '/v1/subscriptions')).status).toBe(401);
    expect(
      (await t.request('GET', '/v1/subscriptions?limit=0', { headers: merchant })).status,
    ).toBe(400);

    const res = await t.request('GET', '/v1/subscriptions?limit=50', { headers: merchant });
    expect(res.status).toBe(200);
    const items = (res.body as { data: { id: string; status: string }[] }).data;
    expect(items[0]).toMatchObject({
      id: subscriptionId,
      status: 'Active',
      sessionId: created.id,
      plan: { id: planId, name: 'Gold monthly', amount: 4990, planType: 'Monthly' },
      billings: [{ status: 'Paid', amount: 4990, installment: 1 }],
      firstBilling: {
        status: 'Paid',
        amount: 4990,
        nsu: expect.stringMatching(/.+/) as unknown,
        authorizationCode: expect.stringMatching(/.+/) as unknown,
      },
    });
    const billingId = (items[0] as unknown as { billings: { id: string }[] }).billings[0]!.id;
    expect((items[0] as unknown as { firstBilling: { id: string } }).firstBilling.id).toBe(
      billingId,
    );
    // The declined subscriptions are listed too, canceled.
    expect(items.some((s) => s.status === 'Canceled')).toBe(true);
    expect(new Set(items.map((s) => s.id)).size).toBe(items.length);
  });
});
