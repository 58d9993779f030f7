import type { Logger } from 'pino';
import type { Debit3dsPaymentResponse } from '../../gateway/schemas';
import { prefixedId, uuid } from '../../lib/ids';
import { lazyChild } from '../../lib/logging';
import type { PayBody } from '../checkout-api';
import type { BffContext } from '../context';
import { endAttemptAsFailure, loadPlan, refreshSession, sessionOutcome } from '../sessions/service';
import { attemptsLeft } from '../sessions/views';
import { transitionSession } from '../sessions/transition';
import {
  findSession,
  type AttemptInsert,
  sessionMethods,
  transitionChallenge,
  type SessionRow,
} from '../sessions/store';
import { openChallenge } from './challenge';
import type { GatewayFailure } from './outcomes';
import {
  cardInfoOf,
  customerOf,
  deviceInfoOf,
  orderNumberOf,
  paymentReferenceOf,
  planAsShown,
  refuse,
  THREE_DS_PENDING,
  type RequestFacts,
  type StepAnswer,
} from './pay-common';
import { settle, settleAuthorization, settleError } from './settlement';
import { subscribe } from './subscribe';
import { claimForAttempt } from '../sessions/transition';
import { atomically } from '../atomic';

/** The 409 a pay gets while an earlier payment's outcome is being confirmed. */
export const PAYMENT_PENDING = {
  tag: 'payment_pending',
  description:
    'payment_pending: the outcome of an earlier payment of this session is being confirmed; no new payment is accepted',
} as const;

/**
 * Answers for a session that cannot take a payment now, or undefined when it can.
 * The order matters: an ended session says how it ended; a live one says it is busy.
 */
async function notPayable(ctx: BffContext, row: SessionRow): Promise<StepAnswer | undefined> {
  switch (row.status) {
    case 'open':
      return undefined;
    case 'processing':
    case 'challenge':
      return refuse(409, 'session', 'session: a payment is already in progress');
    case 'pending':
      return { ok: false, status: 409, items: [{ ...PAYMENT_PENDING }] };
    case 'succeeded':
      return {
        ok: true,
        result: {
          status: 'failed',
          error: { code: 'already_paid', retryable: false },
          attemptsLeft: 0,
        },
      };
    default: {
      const outcome = await sessionOutcome(ctx, row);
      return {
        ok: true,
        result: outcome ?? {
          status: 'failed',
          error: { code: 'session_expired', retryable: false },
          attemptsLeft: 0,
        },
      };
    }
  }
}

/**
 * A plan session subscribes to the plan the shopper was shown. The gateway bills the plan as
 * it is now: when the merchant has changed its amount, interval, number of charges or trial
 * since (or it is no longer Active), the session expires and the shopper starts again on the
 * plan as it is, rather than subscribe on terms never shown. Answers undefined while the plan
 * is as shown.
 */
async function planChanged(
  ctx: BffContext,
  row: SessionRow,
  log: Logger,
): Promise<StepAnswer | undefined> {
  const plan = await loadPlan(ctx, row.plan_id!);
  if (!plan.ok && plan.status === 503) {
    // Nothing was sent: the shopper may certainly try again.
    return {
      ok: true,
      result: {
        status: 'failed',
        error: { code: 'try_again_later', retryable: true },
        attemptsLeft: attemptsLeft(ctx, row),
      },
    };
  }
  if (planAsShown(row, plan)) return undefined;
  log.warn(
    { event: 'checkout.plan_changed', sessionId: row.id, planId: row.plan_id },
    'the plan changed since the checkout session was created: the session expires',
  );
  await transitionSession(ctx, row.id, 'open', 'expired', ctx.clock.now(), {
    failure_code: 'session_expired',
  });
  const current = (await findSession(ctx.db, row.id)) ?? row;
  return (
    (await notPayable(ctx, current)) ??
    refuse(409, 'session', 'session: a payment is already in progress')
  );
}

/**
 * `POST /checkout/api/pay`: one gateway call for one attempt. The amount comes from the
 * session; the session is claimed (`open → processing`) before the call so two submits can
 * never both reach the gateway.
 */
export async function pay(
  ctx: BffContext,
  sessionRow: SessionRow,
  body: PayBody,
  facts: RequestFacts,
  log: Logger,
): Promise<StepAnswer> {
  let row = await refreshSession(ctx, sessionRow);
  // A challenge abandoned reopens the session: its own time may have run out meanwhile.
  if (row.status === 'challenge')
    row = await refreshSession(ctx, await abandonPendingChallenge(ctx, row));
  const blocked = await notPayable(ctx, row);
  if (blocked) return blocked;
  if (!sessionMethods(row).includes(body.method)) {
    return refuse(400, 'method', `method: ${body.method} is not offered by this session`);
  }
  if (body.method === 'credit' && body.installments > row.max_installments) {
    return refuse(400, 'installments', `installments: at most ${row.max_installments}`);
  }
  if (body.method === 'debit' && body.installments !== 1) {
    return refuse(400, 'installments', 'installments: debit is paid in one installment');
  }

  if (row.plan_id) {
    const changed = await planChanged(ctx, row, log);
    if (changed) return changed;
  }

  const now = ctx.clock.now();
  const attemptId = prefixedId('pa', 12);
  const reference = row.plan_id ? orderNumberOf(attemptId) : paymentReferenceOf(row, attemptId);
  const attempt: AttemptInsert = {
    id: attemptId,
    session_id: row.id,
    method: body.method,
    // Unknown until the gateway answers: a crash mid-call leaves the truth visible, and the
    // resolver looks the attempt up once it is older than the gateway timeout.
    status: 'unknown',
    failure_code: null,
    return_code: null,
    payment_id: null,
    nsu: null,
    authorization_code: null,
    subscription_id: null,
    amount: row.amount,
    installments: body.installments,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    canceled_at: null,
    gateway_reference: reference,
    billing_id: null,
    billing_status: null,
    billing_amount: null,
    card_brand: body.brand ?? null,
    card_last4: body.last4 ?? null,
    subscription_canceled_json: null,
    trial_days: null,
  };
  const claimed = await claimForAttempt(ctx, attempt, now);
  if (!claimed) {
    const current = (await findSession(ctx.db, row.id)) ?? row;
    return (
      (await notPayable(ctx, current)) ??
      refuse(409, 'session', 'session: a payment is already in progress')
    );
  }
  const attemptLog = lazyChild(log, { sessionId: row.id, attemptId, method: body.method });
  const customer = customerOf(row, body, facts);
  const cardInfo = cardInfoOf(body.encryptedCard, body.cardholderName, body.brand);

  if (row.plan_id) {
    return {
      ok: true,
      result: await subscribe(ctx, row, row.plan_id, attemptId, cardInfo, attemptLog),
    };
  }

  if (body.method === 'credit') {
    try {
      const res = await ctx.gateway.createCreditPayment(
        {
          payment: {
            transactionType: 'credit',
            amount: row.amount,
            productType: body.installments === 1 ? 'avista' : 'lojista',
            installments: body.installments,
          },
          referenceTransaction: reference,
          sellerInfo: { codeAntiFraud: body.fingerprint },
          ...(customer ? { customer } : {}),
          cardInfo,
        },
        { idempotencyKey: attemptId },
      );
      return {
        ok: true,
        result: await settleAuthorization(
          ctx,
          row,
          attemptId,
          res.paymentAuthorization,
          attemptLog,
        ),
      };
    } catch (err) {
      return { ok: true, result: await settleError(ctx, row, attemptId, err, attemptLog) };
    }
  }

  const code3ds = uuid();
  let res: Debit3dsPaymentResponse;
  try {
    res = await ctx.gateway.createDebit3dsPayment(
      {
        cardInfo,
        ...(customer ? { customer } : {}),
        deviceInfo: deviceInfoOf(body, row.frame_accept, facts),
        payment: {
          transactionType: 'debit',
          amount: row.amount,
          productType: 'debito',
          installments: 1,
        },
        sellerInfo: { codeAntiFraud: body.fingerprint, code3DS: code3ds, urlSite3DS: row.origin },
        referenceTransaction: reference,
      },
      { idempotencyKey: attemptId },
    );
  } catch (err) {
    return { ok: true, result: await settleError(ctx, row, attemptId, err, attemptLog) };
  }

  const t = res.threeDs;
  // threeDs first: a paymentAuthorization beside a pending challenge only waits for it.
  if (t.status === THREE_DS_PENDING) {
    if (!t.acsUrl || !t.pareq || !t.authenticationTransactionId) {
      attemptLog.error('gateway asked for a challenge without acsUrl, pareq or transaction id');
      return {
        ok: true,
        result: await settle(ctx, row, attemptId, { kind: 'unavailable' }, attemptLog),
      };
    }
    return {
      ok: true,
      result: await openChallenge(ctx, row, attemptId, body, {
        acsUrl: t.acsUrl,
        pareq: t.pareq,
        authenticationTransactionId: t.authenticationTransactionId,
        code3ds,
      }),
    };
  }
  if (!res.paymentAuthorization) {
    // A failed authentication charged nothing; any other answer with no authorization does
    // not say what happened (it may have charged): unknown, looked up in the ledger.
    const failure: GatewayFailure =
      t.status === 'AUTHENTICATION_FAILED' ? { kind: 'three_ds_failed' } : { kind: 'unknown' };
    return { ok: true, result: await settle(ctx, row, attemptId, failure, attemptLog) };
  }
  return {
    ok: true,
    result: await settleAuthorization(ctx, row, attemptId, res.paymentAuthorization, attemptLog),
  };
}

/**
 * A new pay while a challenge waits unanswered means the shopper left it (a closed dialog whose
 * cancel was lost, another card chosen after a reload): the challenge is canceled, without
 * using an attempt (the bank did not judge the card), so the session is not stuck for ten
 * minutes. An answered challenge is left to complete.
 */
async function abandonPendingChallenge(ctx: BffContext, row: SessionRow): Promise<SessionRow> {
  const pending = await ctx.db
    .selectFrom('challenges')
    .select(['id', 'attempt_id'])
    .where('session_id', '=', row.id)
    .where('status', '=', 'pending')
    .execute();
  for (const ch of pending) {
    // The challenge and its attempt and session end together, or not at all.
    await atomically(ctx, async (tx) => {
      if (await transitionChallenge(tx.db, ch.id, ['pending'], 'canceled')) {
        await endAttemptAsFailure(tx, row, ch.attempt_id, 'challenge_canceled', false, 'challenge');
      }
    });
  }
  return (await findSession(ctx.db, row.id)) ?? row;
}
