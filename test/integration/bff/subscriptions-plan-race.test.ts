import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { GatewayTimeoutError } from '../../../server/gateway/errors';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { createPlan, gw, monthlyPlan } from '../sandbox/recurrence/helpers';
import { failWrites } from '../../support/store-failures';

// A plan checked at pay that changes before its subscription is made: the gateway refuses the
// subscription (400), which says nothing of the shopper's card.
let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(() => t.close());

const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

interface Detail {
  id: string;
  status: string;
  attemptsLeft?: number;
  attempts: { status: string; failureCode: string | null; subscriptionId: string | null }[];
}

/** A plan session paid with a good card, `between` run once the card is in the vault. */
async function payWhile(planId: string, between: () => Promise<unknown>) {
  const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
  const gateway = t.bff.ctx.gateway;
  const vaultCard = gateway.vaultCard.bind(gateway);
  gateway.vaultCard = async (...args: Parameters<typeof vaultCard>) => {
    const kept = await vaultCard(...args);
    await between();
    return kept;
  };
  try {
    const res = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const detail = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    return { pay: res.body, detail: detail.body as Detail };
  } finally {
    gateway.vaultCard = vaultCard;
  }
}

describe('a subscription the gateway refuses while the card is being kept', () => {
  it('a plan deactivated meanwhile expires the session, no attempt of the shopper used', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Race monthly' });
    const { pay, detail } = await payWhile(planId, () =>
      gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}/status`, { status: 'Inactive' }),
    );
    // Not "check your card": the plan the shopper was shown is gone; start again.
    expect(pay).toMatchObject({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
    });
    expect(detail).toMatchObject({
      status: 'expired',
      attempts: [{ status: 'failed', failureCode: 'session_expired', subscriptionId: null }],
    });
    const row = await t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .select('attempts_used')
      .where('plan_id', '=', planId)
      .executeTakeFirstOrThrow();
    expect(Number(row.attempts_used)).toBe(0);
    const events = await t.request('GET', '/v1/events?type=checkout_session.expired&limit=100', {
      headers: merchant,
    });
    expect(
      (events.body as { data: { data: { plan?: { id: string } } }[] }).data.some(
        (e) => e.data.plan?.id === planId,
      ),
    ).toBe(true);
  });

  it('a refusal with the plan still as shown stays the card’s: invalid_card, an attempt used', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Refused monthly' });
    const { pay, detail } = await payWhile(planId, () =>
      t.sandbox.call('POST', '/__sandbox/faults', {
        token: null,
        body: { method: 'POST', path: '/v1/recurrences/subscriptions', status: 400, count: 1 },
      }),
    );
    expect(pay).toEqual({
      status: 'failed',
      error: { code: 'invalid_card', retryable: true },
      attemptsLeft: 2,
    });
    expect(detail).toMatchObject({ status: 'open', attempts: [{ failureCode: 'invalid_card' }] });
  });

  it('a refusal whose plan cannot be read then charged nothing: try again, no attempt used', async () => {
    const planId = await createPlan(t.sandbox, { ...monthlyPlan, name: 'Unread monthly' });
    const fault = (body: object) =>
      t.sandbox.call('POST', '/__sandbox/faults', { token: null, body });
    let answer;
    try {
      answer = await payWhile(planId, async () => {
        await fault({
          method: 'POST',
          path: '/v1/recurrences/subscriptions',
          status: 400,
          count: 1,
        });
        await fault({
          method: 'GET',
          path: `/v1/recurrences/plans/${planId}`,
          status: 500,
          count: 10,
        });
      });
    } finally {
      await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    }
    expect(answer.pay).toEqual({
      status: 'failed',
      error: { code: 'try_again_later', retryable: true },
      attemptsLeft: 3,
    });
    expect(answer.detail).toMatchObject({ status: 'open' });
  });
});

/** The merchant re-prices the plan as the spec allows: Inactive, the new amount, Active. */
async function reprice(planId: string, body: object, amount: number) {
  await gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}/status`, { status: 'Inactive' });
  const { merchantId } = (await gw(t.sandbox, 'GET', `/v1/recurrences/plans/${planId}`)).body as {
    merchantId: string;
  };
  const res = await gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}`, {
    ...body,
    merchantId,
    amount,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}/status`, { status: 'Active' });
}

const subscriptionOf = async (id: string) =>
  (await gw(t.sandbox, 'GET', `/v1/recurrences/subscriptions/${id}`)).body as { status: string };

describe('a plan re-priced while the card is being kept (after the pay checked it)', () => {
  it('a first billing paid at the new amount is told at that amount; the subscription is canceled', async () => {
    const body = { ...monthlyPlan, name: 'Repriced monthly' };
    const planId = await createPlan(t.sandbox, body);
    const { pay, detail } = await payWhile(planId, () => reprice(planId, body, 59.9));
    // The charge happened: succeeded, at what it charged, never the R$ 49,90 shown.
    expect(pay).toMatchObject({ status: 'succeeded', payment: { amount: 5_990 } });
    const subscriptionId = (pay as { payment: { subscriptionId: string } }).payment.subscriptionId;
    // Terms the shopper never saw bill no more.
    expect((await subscriptionOf(subscriptionId)).status).toBe('Canceled');
    expect(detail).toMatchObject({ status: 'succeeded' });
    const events = await t.request('GET', '/v1/events?limit=100', { headers: merchant });
    const mine = (
      events.body as { data: { type: string; data: { id?: string; plan?: { amount: number } } }[] }
    ).data.filter((e) => e.data.id === subscriptionId);
    // Both tell the price the subscription billed, not the one the session showed.
    expect(mine.map((e) => e.data.plan?.amount)).toEqual([5_990, 5_990]);
    // Oldest first: the merchant learns of the subscription, then of its cancel.
    expect(mine.map((e) => e.type).reverse()).toEqual([
      'subscription.created',
      'subscription.canceled',
    ]);
  });

  it('a trial re-priced meanwhile charged nothing: subscription canceled, session expired', async () => {
    const body = { ...monthlyPlan, name: 'Repriced trial', trialDays: 7 };
    const planId = await createPlan(t.sandbox, body);
    const { pay, detail } = await payWhile(planId, () => reprice(planId, body, 59.9));
    expect(pay).toMatchObject({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
    });
    expect(detail).toMatchObject({ status: 'expired', attempts: [{ status: 'failed' }] });
    const subscriptionId = detail.attempts[0]!.subscriptionId!;
    expect((await subscriptionOf(subscriptionId)).status).toBe('Canceled');
  });
});

/**
 * The BFF's first subscription cancel from now on reaches the gateway but its answer is lost.
 * Resolves the function that puts the gateway client back.
 */
function loseFirstCancelAnswer(): () => void {
  const gateway = t.bff.ctx.gateway;
  const set = gateway.setSubscriptionStatus.bind(gateway);
  let n = 0;
  gateway.setSubscriptionStatus = async (...args: Parameters<typeof set>) => {
    const done = await set(...args);
    if (n++ === 0) {
      throw new GatewayTimeoutError({
        operation: 'setSubscriptionStatus',
        status: 0,
        sent: true,
        timeoutMs: 1,
      });
    }
    return done;
  };
  return () => {
    gateway.setSubscriptionStatus = set;
  };
}

/**
 * The BFF's cancel of a re-priced trial's subscription reaches the gateway but its answer is
 * lost: the pay answers pending. The plan, unused again, may then change once more; what the
 * resolver decides must not depend on it: the subscription is canceled, the session expires.
 */
describe('a re-priced trial whose cancel answer was lost', () => {
  async function lostCancel(name: string, after: (planId: string, body: object) => Promise<void>) {
    const body = { ...monthlyPlan, name, trialDays: 7 };
    const planId = await createPlan(t.sandbox, body);
    const gateway = t.bff.ctx.gateway;
    const restoreCancel = loseFirstCancelAnswer();
    let sessionId: string;
    try {
      const s = await t.createSession({ planId, amount: undefined, maxInstallments: undefined });
      sessionId = s.id;
      const vaultCard = gateway.vaultCard.bind(gateway);
      gateway.vaultCard = async (...args: Parameters<typeof vaultCard>) => {
        const kept = await vaultCard(...args);
        await reprice(planId, body, 59.9);
        return kept;
      };
      try {
        const res = await t.pay(
          s.clientSecret,
          await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
        );
        expect(res.body).toEqual({ status: 'pending' });
      } finally {
        gateway.vaultCard = vaultCard;
      }
    } finally {
      restoreCancel();
    }
    await after(planId, body);
    for (let i = 0; i < 2; i++) {
      await resolveUnknownAttempts(t.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
      });
    }
    const detail = await t.request('GET', `/v1/checkout-sessions/${sessionId}`, {
      headers: merchant,
    });
    return detail.body as Detail;
  }

  it('the plan priced back as shown: still expired, never told it started', async () => {
    const detail = await lostCancel('Lost cancel, priced back', (planId, body) =>
      reprice(planId, body, 49.9),
    );
    expect(detail).toMatchObject({ status: 'expired', attempts: [{ status: 'failed' }] });
    const subscriptionId = detail.attempts[0]!.subscriptionId!;
    expect((await subscriptionOf(subscriptionId)).status).toBe('Canceled');
    const events = await t.request('GET', '/v1/events?limit=100', { headers: merchant });
    const told = (events.body as { data: { type: string; data: { id?: string } }[] }).data.filter(
      (e) => e.data.id === subscriptionId,
    );
    expect(told).toEqual([]);
  });

  it('the trial then dropped from the plan: expired, not pending for good', async () => {
    const detail = await lostCancel('Lost cancel, trial dropped', async (planId, body) => {
      const { merchantId } = (await gw(t.sandbox, 'GET', `/v1/recurrences/plans/${planId}`))
        .body as { merchantId: string };
      const res = await gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}`, {
        ...body,
        merchantId,
        amount: 59.9,
        trialDays: 0,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    expect(detail).toMatchObject({ status: 'expired', attempts: [{ status: 'failed' }] });
  });
});

/** The merchant changes the plan's terms (not its amount): the gateway takes it while unused. */
async function changeTerms(planId: string, body: object) {
  const { merchantId } = (await gw(t.sandbox, 'GET', `/v1/recurrences/plans/${planId}`)).body as {
    merchantId: string;
  };
  const res = await gw(t.sandbox, 'POST', `/v1/recurrences/plans/${planId}`, {
    ...body,
    merchantId,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * A plan session paid while the plan's terms change after the pay checked them (once the card
 * is in the vault); with `lost`, the subscription's creation answer is lost (made at the
 * gateway) and the resolver settles the attempt.
 */
async function payOnChangedTerms(name: string, before: object, after: object, lost: boolean) {
  const planId = await createPlan(t.sandbox, { ...before, name });
  const gateway = t.bff.ctx.gateway;
  const create = gateway.createSubscription.bind(gateway);
  if (lost) {
    gateway.createSubscription = async (...args: Parameters<typeof create>) => {
      await create(...args);
      throw new GatewayTimeoutError({
        operation: 'createSubscription',
        status: 0,
        sent: true,
        timeoutMs: 1,
      });
    };
  }
  let answer: Awaited<ReturnType<typeof payWhile>>;
  try {
    answer = await payWhile(planId, () => changeTerms(planId, { ...before, ...after, name }));
  } finally {
    gateway.createSubscription = create;
  }
  if (!lost) return answer;
  expect(answer.pay).toEqual({ status: 'pending' });
  for (let i = 0; i < 2; i++) {
    await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
  }
  const sessionId = (
    await t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .select('id')
      .where('plan_id', '=', planId)
      .executeTakeFirstOrThrow()
  ).id;
  const detail = await t.request('GET', `/v1/checkout-sessions/${sessionId}`, {
    headers: merchant,
  });
  return { pay: null, detail: detail.body as Detail };
}

/** Charged on terms not shown: the charge stands, the subscription canceled and told so. */
async function expectChargedAndCanceled(answer: { pay: unknown; detail: Detail }) {
  if (answer.pay) expect(answer.pay).toMatchObject({ status: 'succeeded' });
  expect(answer.detail).toMatchObject({ status: 'succeeded' });
  const subscriptionId = answer.detail.attempts[0]!.subscriptionId!;
  expect((await subscriptionOf(subscriptionId)).status).toBe('Canceled');
  const events = await t.request('GET', '/v1/events?limit=100', { headers: merchant });
  const mine = (events.body as { data: { type: string; data: { id?: string } }[] }).data.filter(
    (e) => e.data.id === subscriptionId,
  );
  expect(mine.map((e) => e.type).reverse()).toEqual([
    'subscription.created',
    'subscription.canceled',
  ]);
}

/** Nothing charged (a trial by the subscription's terms): canceled, the session expired. */
async function expectDropped(answer: { pay: unknown; detail: Detail }) {
  if (answer.pay) {
    expect(answer.pay).toMatchObject({
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
    });
  }
  expect(answer.detail).toMatchObject({ status: 'expired', attempts: [{ status: 'failed' }] });
  const subscriptionId = answer.detail.attempts[0]!.subscriptionId!;
  expect((await subscriptionOf(subscriptionId)).status).toBe('Canceled');
}

const trialPlan = { ...monthlyPlan, trialDays: 7 };
const customPlan = { ...monthlyPlan, planType: 'Custom', interval: 30, installments: 12 };

describe.each([
  ['the pay', false],
  ['the resolver (creation answer lost)', true],
])('plan terms other than the amount changed as it is subscribed, settled by %s', (_, lost) => {
  const tag = lost ? 'lost' : 'pay';
  it('a trial removed meanwhile charged at once: the charge stands, the subscription canceled', async () => {
    await expectChargedAndCanceled(
      await payOnChangedTerms(`Trial removed ${tag}`, trialPlan, { trialDays: 0 }, lost),
    );
  });

  it('a trial added meanwhile charged nothing: canceled, the session expired', async () => {
    await expectDropped(
      await payOnChangedTerms(`Trial added ${tag}`, monthlyPlan, { trialDays: 7 }, lost),
    );
  });

  it('the number of charges raised meanwhile: the charge stands, the subscription canceled', async () => {
    await expectChargedAndCanceled(
      await payOnChangedTerms(`Installments ${tag}`, customPlan, { installments: 24 }, lost),
    );
  });

  it('the interval changed meanwhile: the charge stands, the subscription canceled', async () => {
    await expectChargedAndCanceled(
      await payOnChangedTerms(`Interval ${tag}`, monthlyPlan, { planType: 'Quarterly' }, lost),
    );
  });
});

describe('a trial added meanwhile whose session cannot be expired (the store fails there)', () => {
  it('the attempt and the session stay in flight together; the resolver then expires it', async () => {
    const restore = await failWrites(
      t.bff.ctx.db,
      'checkout_sessions',
      'update',
      "new.status = 'expired'",
    );
    let answer: Awaited<ReturnType<typeof payOnChangedTerms>>;
    try {
      const name = 'Trial added, store down';
      answer = await payOnChangedTerms(name, monthlyPlan, { trialDays: 7 }, false);
    } finally {
      await restore();
    }
    // Never open beside its canceled subscription: a shopper could pay again on no plan shown.
    expect(answer.detail.status).not.toBe('open');
    expect(answer.detail.attempts[0]!.status).toBe('unknown');
    for (let i = 0; i < 2; i++) {
      await resolveUnknownAttempts(t.bff.ctx, {
        accountNumber: DEFAULT_CLIENT.accountNumber,
        settleAfterMs: 0,
        strandedAfterMs: 0,
      });
    }
    const sessionId = (
      await t.bff.ctx.db
        .selectFrom('payment_attempts')
        .select('session_id')
        .where('subscription_id', '=', answer.detail.attempts[0]!.subscriptionId)
        .executeTakeFirstOrThrow()
    ).session_id;
    const detail = await t.request('GET', `/v1/checkout-sessions/${sessionId}`, {
      headers: merchant,
    });
    await expectDropped({ pay: null, detail: detail.body as Detail });
  });
});

describe('a paid subscription on terms not shown whose cancel answer was lost', () => {
  it('the plan then set back as shown: the charge stands, told canceled', async () => {
    const restoreCancel = loseFirstCancelAnswer();
    const name = 'Interval, cancel lost';
    let answer: Awaited<ReturnType<typeof payOnChangedTerms>>;
    try {
      answer = await payOnChangedTerms(name, monthlyPlan, { planType: 'Quarterly' }, false);
    } finally {
      restoreCancel();
    }
    expect(answer.pay).toEqual({ status: 'pending' });
    // Unused once canceled, the plan is set back to the terms the session showed.
    const planId = (
      await t.bff.ctx.db
        .selectFrom('payment_attempts')
        .innerJoin('checkout_sessions', 'checkout_sessions.id', 'payment_attempts.session_id')
        .select('plan_id')
        .where('subscription_id', '=', answer.detail.attempts[0]!.subscriptionId)
        .executeTakeFirstOrThrow()
    ).plan_id!;
    await changeTerms(planId, { ...monthlyPlan, name });
    await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
    const detail = await t.request('GET', `/v1/checkout-sessions/${answer.detail.id}`, {
      headers: merchant,
    });
    await expectChargedAndCanceled({ pay: null, detail: detail.body as Detail });
  });
});
