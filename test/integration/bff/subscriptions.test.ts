import { describe, expect, it } from 'vitest';
import type { PayResult, PublicSession } from '../../../server/bff/checkout-api';
import { apiError } from '../../support/bff';
import {
  createPlan,
  createSession,
  merchant,
  planId,
  t,
  useSubscriptionsBff,
} from '../../support/subscriptions-bff';

// A checkout session of a plan (planId): what it takes and shows, and a pay that subscribes.
// Also: subscriptions-first-billing.test.ts (the first billing's outcomes, the list) and
// subscriptions-pay-failures.test.ts (failures before or while subscribing).
useSubscriptionsBff();

describe('subscription checkout (planId)', () => {
  it('takes the amount from the plan and shows the plan to the frame', async () => {
    const res = await createSession({ planId });
    expect(res.status).toBe(201);
    const s = res.body as { clientSecret: string; amount: number };
    expect(s.amount).toBe(4990);
    const pub = await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    expect(pub.body).toMatchObject({
      amount: 4990,
      methods: ['credit'],
      maxInstallments: 1,
      plan: {
        id: planId,
        name: 'Gold monthly',
        amount: 4990,
        intervalDays: 30,
        description: 'Gold monthly membership',
      },
    } satisfies Partial<PublicSession>);
  });

  it.each([
    [{ planId: 'no-such-plan' }, 'planId'],
    [{ planId: 'x', amount: 100 }, 'amount'],
    [{ planId: 'x', methods: ['debit'] }, 'methods'],
    // Not stored as something else: a plan is paid by credit in one installment.
    [{ planId: 'x', methods: ['credit', 'debit'] }, 'methods', 'credit card only'],
    [{ planId: 'x', maxInstallments: 12 }, 'maxInstallments', 'must be 1'],
  ])('400 for %o', async (body, tag, rule?: string) => {
    const fresh = body.planId === 'x' ? { ...body, planId } : body;
    const res = await createSession(fresh);
    expect(res.status).toBe(400);
    expect(apiError(res).param).toBe(tag);
    if (rule) expect(apiError(res).message).toContain(rule);
  });

  it('accepts what a plan session is anyway: credit only, one installment', async () => {
    const res = await createSession({ planId, methods: ['credit'], maxInstallments: 1 });
    expect(res.status).toBe(201);
  });

  it('refuses a plan that is not Active', async () => {
    const inactive = await createPlan({ name: 'Old plan', amount: 10, planType: 'Yearly' });
    const st = await t.sandbox.call('POST', `/v1/recurrences/plans/${inactive}/status`, {
      body: { status: 'Inactive' },
    });
    expect(st.status).toBe(200);
    const res = await createSession({ planId: inactive });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('Inactive');
  });

  it('paying vaults the card and subscribes it; the gateway holds an Active subscription', async () => {
    const created = (await createSession({ planId, referenceTransaction: 'sub-42' })).body as {
      id: string;
      clientSecret: string;
    };
    const debit = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701'),
    );
    expect(debit.status).toBe(400);
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({
      status: 'succeeded',
      payment: { amount: 4990, installments: 1, method: 'credit' },
    });
    const subscriptionId = result.payment.subscriptionId!;
    expect(subscriptionId).toEqual(expect.any(String));
    const sub = await t.sandbox.call('GET', `/v1/recurrences/subscriptions/${subscriptionId}`);
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    const attemptId = (detail.body as { attempts: { id: string }[] }).attempts[0]!.id;
    // The order number names the attempt (its id's last ten), so the billings lead back to it.
    expect(sub.body).toMatchObject({
      id: subscriptionId,
      status: 'Active',
      orderNumber: attemptId.slice(-10),
    });
    expect((sub.body as { plan: { id: string } }).plan.id).toBe(planId);
    expect(detail.body).toMatchObject({
      status: 'succeeded',
      plan: { id: planId },
      payment: { subscriptionId },
    });
    // The first billing's evidence: billing id, status, amount, and its sale's NSU, code and
    // payment id from the gateway's ledger, also in what the shopper's page was told.
    const payment = (
      detail.body as {
        payment: {
          paymentId: string;
          nsu: string;
          authorizationCode: string;
          firstBilling: Record<string, unknown>;
        };
      }
    ).payment;
    expect(payment.firstBilling).toEqual({
      id: expect.any(String) as unknown,
      status: 'Paid',
      amount: 4990,
      currency: 'BRL',
      nsu: expect.stringMatching(/.+/) as unknown,
      authorizationCode: expect.stringMatching(/.+/) as unknown,
      paymentId: expect.stringMatching(/.+/) as unknown,
    });
    expect(payment.nsu).toBe(payment.firstBilling.nsu);
    expect(result.payment.paymentId).toBe(payment.paymentId);
    expect(result.payment.authorizationCode).toBe(payment.authorizationCode);
  });

  it('quotes a plan of 1.005 as the 101 cents the gateway bills, not 100', async () => {
    const odd = await createPlan({ name: 'Odd monthly', amount: 1.005, planType: 'Monthly' });
    const created = (await createSession({ planId: odd })).body as {
      id: string;
      clientSecret: string;
      amount: number;
    };
    expect(created.amount).toBe(101);
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result).toMatchObject({ status: 'succeeded', payment: { amount: 101 } });
    const detail = await t.request('GET', `/v1/checkout-sessions/${created.id}`, {
      headers: merchant,
    });
    expect(detail.body).toMatchObject({
      amount: 101,
      payment: { firstBilling: { status: 'Paid', amount: 101 } },
    });
    const charged = await t.sandbox.sandbox.ctx.db
      .selectFrom('payments')
      .select('amount')
      .where('payment_id', '=', result.payment.paymentId!)
      .executeTakeFirstOrThrow();
    expect(charged.amount).toBe(101);
    // A plan may carry 12 integer digits; a payment only 10 digits of cents.
    const huge = await createPlan({ name: 'Huge', amount: 100_000_000, planType: 'Monthly' });
    const refused = await createSession({ planId: huge });
    expect(refused.status).toBe(400);
    expect(apiError(refused)).toMatchObject({ param: 'planId' });
  });
});
