import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsDb } from '../../../server/bff/events/store';
import { resolveUnknownAttempts } from '../../../server/bff/payments/resolver';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import {
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  postForm,
  startBff,
  type TestBff,
} from '../../support/bff';
import { answerAtAcs, type Challenge } from '../../support/challenge';
import { armFailpoint } from '../../support/store-failures';

// A crash can stop the BFF between any two writes. Whatever it leaves must be a state a
// recovery loop looks at again, or a state that is already true: the resolver reads unknown
// attempts (sessions `processing` or `pending`), the challenge sweep reads pending or answered
// challenges (sessions in `challenge`), an ended session has its event. Each flow below is run
// once per row it writes, stopped at that row (it and every later write fail), and the session
// is then checked: nothing left where no loop would find it.

let t: TestBff;
beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 100_000 } });
  const plan = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      name: 'Crash monthly',
      description: 'Crash monthly membership',
      amount: 49.9,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
    },
  });
  expect(plan.status).toBe(200);
  planId = plan.body as string;
});
afterAll(() => t.close());

type Session = Awaited<ReturnType<TestBff['createSession']>>;

const CHALLENGED = '4000000000002503';
const APPROVED = '4000000000002701';

async function openChallenge(s: Session): Promise<Challenge> {
  const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, CHALLENGED));
  return res.body as Challenge;
}

/** A checkout of the sandbox plan made in `beforeAll` (a subscription when paid). */
let planId = '';
async function planSession(): Promise<Session> {
  const res = await t.request('POST', '/v1/checkout-sessions', {
    headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
    body: { planId, origin: MERCHANT_ORIGIN },
  });
  expect(res.status).toBe(201);
  return res.body as Session;
}

const FLOWS: Record<string, (s: Session) => Promise<unknown>> = {
  'a credit pay, approved': async (s) =>
    t.pay(s.clientSecret, await t.payBody(s.clientSecret, APPROVED, { method: 'credit' })),
  'a credit pay, declined': async (s) =>
    t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000000002', { method: 'credit' }),
    ),
  'a challenge answered and completed': async (s) => {
    const ch = await openChallenge(s);
    const answer = await answerAtAcs(ch.challengeUrl, '1234');
    await postForm(answer.action, answer.fields);
    return t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/complete', {
      body: {
        challengeId: ch.challengeId,
        encryptedCard: await t.encryptCard(s.clientSecret, CHALLENGED),
      },
    });
  },
  'a challenge closed by the shopper': async (s) => {
    const ch = await openChallenge(s);
    return t.frame(s.clientSecret, 'POST', '/checkout/api/challenge/cancel', {
      body: { challengeId: ch.challengeId, reason: 'closed' },
    });
  },
  'a challenge abandoned by a new pay': async (s) => {
    await openChallenge(s);
    return t.pay(s.clientSecret, await t.payBody(s.clientSecret, APPROVED, { method: 'credit' }));
  },
  'a subscription checkout, paid': async () => {
    const s = await planSession();
    await t.pay(s.clientSecret, await t.payBody(s.clientSecret, APPROVED, { method: 'credit' }));
    return s;
  },
  'a subscription checkout, its first billing refused': async () => {
    const s = await planSession();
    await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, '4000000000000002', { method: 'credit' }),
    );
    return s;
  },
  'a challenge left to time out': async (s) => {
    await openChallenge(s);
    t.clock.advance(10 * 60_000 + 1000);
    try {
      return await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    } finally {
      t.clock.reset(0);
    }
  },
};

/**
 * Runs `flow` on `s`, or on the session it makes and returns (a subscription checkout makes its
 * own: its creation is the first row counted, and stopped there nothing is made).
 */
async function sessionOf(flow: (s: Session) => Promise<unknown>, s: Session): Promise<Session> {
  const out = await flow(s);
  return out && typeof out === 'object' && 'clientSecret' in out ? (out as Session) : s;
}

/** What is wrong with the session's rows: states no recovery loop would find. */
async function strandedStates(sessionId: string, bff = t): Promise<string[]> {
  const db = bff.bff.ctx.db;
  const { status } = await db
    .selectFrom('checkout_sessions')
    .select('status')
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const attempts = await db
    .selectFrom('payment_attempts')
    .select(['id', 'status'])
    .where('session_id', '=', sessionId)
    .execute();
  const challenges = await db
    .selectFrom('challenges')
    .select(['status', 'attempt_id'])
    .where('session_id', '=', sessionId)
    .execute();
  const events = await eventsDb(db)
    .selectFrom('bff_events')
    .select('type')
    .where('session_id', '=', sessionId)
    .execute();
  const live = challenges.filter((c) => c.status === 'pending' || c.status === 'answered');
  const attemptsIn = (s: string) => attempts.filter((a) => a.status === s);
  const wrong: string[] = [];
  if ((status === 'processing' || status === 'pending') && attemptsIn('unknown').length !== 1) {
    wrong.push(`session ${status} without one unknown attempt`);
  }
  if (status === 'challenge' && live.length !== 1) {
    wrong.push('session in challenge without one pending or answered challenge');
  }
  for (const a of attemptsIn('challenge')) {
    if (status !== 'challenge' || !live.some((c) => c.attempt_id === a.id)) {
      wrong.push(`attempt in challenge, session ${status}, its challenge not live`);
    }
  }
  if (status === 'open' && (attemptsIn('unknown').length > 0 || live.length > 0)) {
    wrong.push('session open beside an unknown attempt or a live challenge');
  }
  if (status === 'succeeded' && attemptsIn('succeeded').length !== 1) {
    wrong.push('session succeeded without one succeeded attempt');
  }
  if (['succeeded', 'failed', 'expired'].includes(status)) {
    if (!events.some((e) => e.type === `checkout_session.${status}`)) {
      wrong.push(`session ${status} without its event`);
    }
  }
  return wrong;
}

describe('a crash between any two writes leaves no session where no loop would find it', () => {
  for (const [name, flow] of Object.entries(FLOWS)) {
    it(name, async () => {
      // How many rows the flow writes when nothing stops it.
      const counting = await armFailpoint(t.bff.ctx.db, 1_000_000);
      const whole = await sessionOf(flow, await t.createSession({ amount: 7_500 }));
      const rows = await counting.written();
      await counting.disarm();
      expect(await strandedStates(whole.id)).toEqual([]);
      expect(rows).toBeGreaterThan(1);

      for (let k = 1; k <= rows; k++) {
        let s = await t.createSession({ amount: 7_500 });
        const failpoint = await armFailpoint(t.bff.ctx.db, k);
        try {
          s = await sessionOf(flow, s);
        } catch {
          // The flow's later steps may fail in any way once the store refuses writes.
        } finally {
          await failpoint.disarm();
        }
        expect({ stoppedAtRow: k, wrong: await strandedStates(s.id) }).toEqual({
          stoppedAtRow: k,
          wrong: [],
        });
        // Once the store works again, the loops bring out the truth: succeeded if and only if
        // the gateway charged (a subscription's truth is its billings: not compared here).
        await recover(s);
        const { status, plan_id } = await t.bff.ctx.db
          .selectFrom('checkout_sessions')
          .select(['status', 'plan_id'])
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow();
        if (plan_id === null) {
          expect({ stoppedAtRow: k, succeeded: status === 'succeeded' }).toEqual({
            stoppedAtRow: k,
            succeeded: await charged(s.id),
          });
        }
        expect(await strandedStates(s.id)).toEqual([]);
      }
    });
  }
});

/**
 * What runs once the store works again: a read of the session (its challenge timed out
 * after 10 minutes) and the resolver (an attempt stranded 2 minutes after its call).
 */
async function recover(s: Session): Promise<void> {
  t.clock.advance(11 * 60_000);
  try {
    await t.frame(s.clientSecret, 'GET', '/checkout/api/session');
    await resolveUnknownAttempts(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
  } finally {
    t.clock.reset(0);
  }
}

/** Whether the gateway's ledger holds an approved sale made for one of the session's attempts. */
async function charged(sessionId: string): Promise<boolean> {
  const attempts = await t.bff.ctx.db
    .selectFrom('payment_attempts')
    .select('gateway_reference')
    .where('session_id', '=', sessionId)
    .execute();
  const day = (offset: number) =>
    new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const res = await t.sandbox.call(
    'POST',
    `/api/transaction/concil/search-by-operation-date?accountNumber=${DEFAULT_CLIENT.accountNumber}&startDate=${day(-1)}&endDate=${day(1)}`,
    { token: await t.sandbox.token('integration') },
  );
  const sales = res.body as { transactionReference: string; transactionStatus: string }[];
  return sales.some(
    (sale) =>
      sale.transactionStatus === 'A' &&
      attempts.some((a) => a.gateway_reference === sale.transactionReference),
  );
}

// The resolver's moves, stopped the same way and then run again: the truth it finds (the sale
// happened, or certainly did not) must come out whole on the next round, never lost.
describe('a crash while the resolver settles an unknown payment delays the truth, never changes it', () => {
  let slow: TestBff;
  beforeAll(async () => {
    slow = await startBff({
      sandbox: t.sandbox,
      gatewayTimeoutMs: 400,
      config: { payRateLimitPerMinute: 100_000 },
    });
  });
  afterAll(() => slow.close());

  const resolve = () =>
    resolveUnknownAttempts(slow.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
  const statusOf = async (id: string) =>
    (
      await slow.bff.ctx.db
        .selectFrom('checkout_sessions')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  /** A session whose pay the gateway answered too late (it happened) or never got (it did not). */
  async function unknownPayment(happened: boolean): Promise<Session> {
    const s = await slow.createSession({ amount: 7_500 });
    const body = await slow.payBody(s.clientSecret, APPROVED, {
      method: 'credit',
      encryptedCard: await t.encryptCard((await t.createSession()).clientSecret, APPROVED),
    });
    await slow.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        method: 'POST',
        path: '/v1/payments',
        count: 1,
        ...(happened ? { latencyMs: 800 } : { drop: true }),
      },
    });
    expect((await slow.pay(s.clientSecret, body)).body).toEqual({ status: 'pending' });
    // The sandbox finishes the late payment once its delay is over.
    if (happened) await new Promise((r) => setTimeout(r, 1000));
    return s;
  }

  for (const happened of [true, false]) {
    it(happened ? 'a sale found in the ledger' : 'no sale a day later', async () => {
      let rows = 0;
      for (let k = 0; k <= rows; k++) {
        const s = await unknownPayment(happened);
        if (!happened) slow.clock.advance(24 * 3_600_000);
        try {
          // Run 0 is whole and counts the rows it writes; run k is stopped at row k.
          const failpoint = await armFailpoint(slow.bff.ctx.db, k === 0 ? 1_000_000 : k);
          await resolve().catch(() => undefined);
          if (k === 0) rows = await failpoint.written();
          await failpoint.disarm();
          expect({ stoppedAtRow: k, wrong: await strandedStates(s.id, slow) }).toEqual({
            stoppedAtRow: k,
            wrong: [],
          });
          // The next round finds the truth and settles it whole.
          await resolve();
          expect(await statusOf(s.id)).toBe(happened ? 'succeeded' : 'open');
          expect(await strandedStates(s.id, slow)).toEqual([]);
        } finally {
          slow.clock.reset(0);
        }
      }
      expect(rows).toBeGreaterThan(1);
    });
  }
});

// A notice that the gateway canceled a payment, stopped the same way while it is stored,
// confirmed and applied: the cancel and its event come together, and the gateway's next
// delivery (it retries until answered 200) or the retry of a stored notice applies it once.
describe('a crash while a Canceled notice is stored and applied cancels the payment once', () => {
  const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;
  const receiver = () => webhookReceiverOf(t.bff.ctx);

  /** A paid session whose payment the gateway then canceled (its ledger says C). */
  async function canceledAtGateway(): Promise<{ attemptId: string; nsu: string; code: string }> {
    const s = await t.createSession({ amount: 6_300 });
    const paid = await t.pay(
      s.clientSecret,
      await t.payBody(s.clientSecret, APPROVED, { method: 'credit' }),
    );
    expect(paid.status).toBe(200);
    const attempt = await t.bff.ctx.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where('session_id', '=', s.id)
      .executeTakeFirstOrThrow();
    const ctl = (path: string, body: unknown) =>
      t.sandbox.call('POST', `/__sandbox${path}`, { token: null, body });
    const open = await ctl('/cancellation-requests', {
      paymentId: attempt.payment_id,
      description: 'crash test',
    });
    const id = (open.body as { id: string }).id;
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' });
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
    return { attemptId: attempt.id, nsu: attempt.nsu!, code: attempt.authorization_code! };
  }

  const cancelState = async (attemptId: string) => {
    const { canceled_at } = await t.bff.ctx.db
      .selectFrom('payment_attempts')
      .select('canceled_at')
      .where('id', '=', attemptId)
      .executeTakeFirstOrThrow();
    const events = await eventsDb(t.bff.ctx.db)
      .selectFrom('bff_events')
      .select('id')
      .where('type', '=', 'payment.canceled')
      .where('dedup_key', '=', `payment.canceled:${attemptId}`)
      .execute();
    return { canceled: canceled_at !== null, events: events.length };
  };

  it('stored, confirmed and applied, stopped at every row', async () => {
    let rows = 0;
    for (let k = 0; k <= rows; k++) {
      const p = await canceledAtGateway();
      const deliver = () =>
        t.request('POST', '/webhooks/gateway', {
          headers: { authorization: basic },
          body: {
            movementId: 800_000_000 + k,
            nsu: p.nsu,
            codAuth: p.code,
            installmentNumber: 1,
            moment: '2026-05-01T10:00:00.000-03:00',
            type: 'TransactionStatus',
            oldValue: 'Authorized',
            newValue: 'Canceled',
          },
        });
      // Run 0 is whole and counts the rows it writes; run k is stopped at row k.
      const failpoint = await armFailpoint(t.bff.ctx.db, k === 0 ? 1_000_000 : k);
      try {
        await deliver();
        await receiver().idle();
      } finally {
        if (k === 0) rows = await failpoint.written();
        await failpoint.disarm();
      }
      // Canceled with its event, or not at all.
      const after = await cancelState(p.attemptId);
      expect({ stoppedAtRow: k, ...after }).toEqual({
        stoppedAtRow: k,
        canceled: after.canceled,
        events: after.canceled ? 1 : 0,
      });
      // The gateway delivers again; a claim the crash left lapses and the notice is retried.
      t.clock.advance(t.bff.ctx.config.inboxClaimMs + 1000);
      try {
        expect((await deliver()).status).toBe(200);
        await receiver().processAll();
        await receiver().idle();
      } finally {
        t.clock.reset(0);
      }
      expect(await cancelState(p.attemptId)).toEqual({ canceled: true, events: 1 });
    }
    expect(rows).toBeGreaterThan(1);
  });
});
