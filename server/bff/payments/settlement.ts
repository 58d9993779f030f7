import type { Logger } from 'pino';
import type { PaymentAuthorization } from '../../gateway/schemas';
import type { FailureCode, PayResult, SessionStatus } from '../checkout-api';
import type { BffContext } from '../context';
import {
  endAttemptAsFailure,
  loadPlan,
  settledMeanwhile,
  succeededResult,
} from '../sessions/service';
import {
  ATTEMPT_COLUMN_LIST,
  IN_FLIGHT,
  updateAttemptInFlight,
  type AttemptRow,
  type SessionRow,
} from '../sessions/store';
import {
  classifyMoneyCallError,
  countsAsAttempt,
  failureCodeOf,
  refusesCiphertext,
  type GatewayFailure,
} from './outcomes';
import { transitionSession } from '../sessions/transition';
import { atomically } from '../atomic';
import { columnsOf, perShape, precompiled, rowsOf, shapeOf } from '../../lib/precompiled';
import type { BffKysely } from '../db';
import { planAsShown } from './pay-common';

/**
 * The states a session settles from once a gateway call answers: `processing`, or `pending`
 * when another BFF process (or the resolver) already judged the call stranded meanwhile.
 */
export const SETTLES_FROM: readonly SessionStatus[] = ['processing', 'pending'];

type Evidence = Pick<
  AttemptRow,
  | 'payment_id'
  | 'nsu'
  | 'authorization_code'
  | 'return_code'
  | 'billing_id'
  | 'billing_status'
  | 'billing_amount'
  | 'trial_days'
> &
  // A subscription charged on terms the session did not show (subscribe.ts): what it charged,
  // and its cancel.
  Partial<Pick<AttemptRow, 'amount' | 'subscription_canceled_json'>>;

/** The attempt's success with the columns of the gateway's answer: one statement per set. */
const succeedQ = perShape((shape) =>
  precompiled((db: BffKysely, p: Evidence & { id: string; at: string }) =>
    db
      .updateTable('payment_attempts')
      .set({
        ...columnsOf<Evidence>(shape, p),
        status: 'succeeded',
        failure_code: null,
        updated_at: p.at,
      })
      .where('id', '=', p.id)
      .where('status', 'in', IN_FLIGHT)
      .returning(ATTEMPT_COLUMN_LIST),
  ),
);

/**
 * An outcome the gateway keeps too, which the resolver finds again after a power cut took it
 * back (an approval, in the ledger; "unknown", still in flight): its answer need not wait for
 * the disk. A decline or failure is in no ledger: it waits, as every other write does.
 */
const OUTCOME = { outcome: true } as const;

/**
 * Keeps `result` as the step's idempotent answer (in the step's transaction), with what the
 * caller writes along with it (`alongOutcome`), and returns it.
 */
async function keep(tx: BffContext, result: PayResult): Promise<PayResult> {
  await tx.keepAnswer?.(tx.db, result);
  await tx.alongOutcome?.(tx.db, result);
  return result;
}

/**
 * Marks the attempt (with what the gateway answered) and its session succeeded. Like every
 * settlement here, it moves an attempt still in flight only: one settled meanwhile by a
 * notification confirmed against the ledger keeps that outcome, and the step answers it.
 */
export async function succeed(
  ctx: BffContext,
  sessionId: string,
  attemptId: string,
  answer: Partial<Evidence>,
): Promise<PayResult> {
  const now = ctx.clock.now();
  // The attempt, the session and the session's events commit together.
  return atomically(
    ctx,
    async (tx) => {
      // The updated row comes back with the update (RETURNING): no read after it.
      const shape = shapeOf(answer);
      const params = {
        payment_id: null,
        nsu: null,
        authorization_code: null,
        return_code: null,
        billing_id: null,
        billing_status: null,
        billing_amount: null,
        trial_days: null,
        ...answer,
        id: attemptId,
        at: now.toISOString(),
      };
      const [updated] = await rowsOf(tx.db, succeedQ(shape)(tx.db, params));
      if (!updated) return keep(tx, await settledMeanwhile(tx, sessionId, attemptId));
      await transitionSession(tx, sessionId, SETTLES_FROM, 'succeeded', now, {
        failure_code: null,
      });
      return keep(tx, succeededResult(updated));
    },
    OUTCOME,
  );
}

export async function settleAuthorization(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  auth: PaymentAuthorization,
  log: Logger,
): Promise<PayResult> {
  if (auth.returnCode !== '00') {
    // A decline may come without ids (the spec marks none as always present).
    const ids = auth.paymentId
      ? {
          paymentId: auth.paymentId,
          authorizationCode: auth.authorizationCode ?? null,
          nsu: auth.nsu ?? null,
        }
      : undefined;
    const declined = { kind: 'declined' as const, returnCode: auth.returnCode };
    return settle(ctx, row, attemptId, ids ? { ...declined, ids } : declined, log);
  }
  // The answer's schema makes an approval name its paymentId.
  log.info({ paymentId: auth.paymentId }, 'payment succeeded');
  return succeed(ctx, row.id, attemptId, {
    payment_id: auth.paymentId ?? null,
    nsu: auth.nsu ?? null,
    authorization_code: auth.authorizationCode ?? null,
    return_code: auth.returnCode,
  });
}

/** A money call threw: a gateway failure settles the attempt; anything else is a bug. */
export async function settleError(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  err: unknown,
  log: Logger,
): Promise<PayResult> {
  await dropKeyOnRefusedCiphertext(ctx, err, log);
  const failure = classifyMoneyCallError(err);
  if (!failure) {
    // A bug, not a gateway answer. The request may have left: the outcome is unknown.
    await settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    throw err;
  }
  if (failure.kind === 'rejected' && row.plan_id) {
    const refused = await refusedForThePlan(ctx, { ...row, plan_id: row.plan_id }, attemptId, log);
    if (refused) return refused;
  }
  return settle(ctx, row, attemptId, failure, log);
}

/**
 * A plan session's refused call (`400`/`422`) is its subscription's creation, which may refuse
 * the plan, not the card: the merchant deactivated or changed it after the pay checked it. The
 * plan is read again; no longer as the session showed it, the session expires as when pay
 * finds it changed (no attempt of the shopper used, nothing was billed). A plan that cannot
 * be read now leaves it untold: try again later, nothing was billed. Undefined while the plan
 * is as shown: the refusal is the card's.
 */
async function refusedForThePlan(
  ctx: BffContext,
  row: SessionRow & { plan_id: string },
  attemptId: string,
  log: Logger,
): Promise<PayResult | undefined> {
  const plan = await loadPlan(ctx, row.plan_id);
  if (planAsShown(row, plan)) return undefined;
  if (!plan.ok && plan.status === 503) {
    return settle(ctx, row, attemptId, { kind: 'unavailable' }, log);
  }
  log.warn(
    { event: 'checkout.plan_changed', sessionId: row.id, planId: row.plan_id },
    'the plan changed while its subscription was being made: the session expires',
  );
  const now = ctx.clock.now();
  return atomically(ctx, async (tx) => {
    const moved = await updateAttemptInFlight(tx.db, attemptId, {
      status: 'failed',
      failure_code: 'session_expired',
      return_code: null,
      updated_at: now.toISOString(),
    });
    if (!moved) return keep(tx, await settledMeanwhile(tx, row.id, attemptId));
    await transitionSession(tx, row.id, SETTLES_FROM, 'expired', now, {
      failure_code: 'session_expired',
    });
    return keep(tx, {
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
      attemptsLeft: 0,
    });
  });
}

/**
 * The gateway could not open the card's ciphertext: perhaps it was made with a key it has
 * rotated since. The cached key is dropped so the next frame load encrypts with the new one.
 */
export async function dropKeyOnRefusedCiphertext(
  ctx: BffContext,
  err: unknown,
  log: Logger,
): Promise<void> {
  if (!refusesCiphertext(err)) return;
  log.warn({ event: 'checkout.ciphertext_refused' }, 'card ciphertext refused: key cache dropped');
  // This process's copy is gone already; the other instances learn of it through the store.
  await ctx.publicKey.drop().catch((e: unknown) => {
    log.warn(
      { event: 'checkout.key_drop_unshared', err: { message: (e as Error).message } },
      'the card key drop could not be told to the other instances: theirs expire on time',
    );
  });
}

export async function settle(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  failure: GatewayFailure,
  log: Logger,
): Promise<PayResult> {
  if (failure.kind === 'unknown') {
    // The request may have reached the gateway: never retried. The session waits `pending`
    // (no new payment) until the resolver finds the truth in the gateway's ledger.
    log.warn({ outcome: 'unknown' }, 'payment outcome unknown: pending until confirmed');
    const now = ctx.clock.now();
    return atomically(
      ctx,
      async (tx) => {
        const moved = await updateAttemptInFlight(tx.db, attemptId, {
          status: 'unknown',
          failure_code: null,
          updated_at: now.toISOString(),
        });
        if (!moved) return keep(tx, await settledMeanwhile(tx, row.id, attemptId));
        await transitionSession(tx, row.id, 'processing', 'pending', now, { failure_code: null });
        return keep(tx, { status: 'pending' });
      },
      OUTCOME,
    );
  }
  const code: FailureCode = failureCodeOf(failure);
  log.info({ outcome: failure.kind, failureCode: code }, 'payment not approved');
  // A decline or failure is in no ledger the resolver reads: its answer waits for the disk.
  return atomically(ctx, async (tx) => {
    if (failure.kind === 'declined' && failure.ids) {
      const moved = await updateAttemptInFlight(tx.db, attemptId, {
        payment_id: failure.ids.paymentId,
        authorization_code: failure.ids.authorizationCode,
        nsu: failure.ids.nsu,
      });
      if (!moved) return keep(tx, await settledMeanwhile(tx, row.id, attemptId));
    }
    const ended = await endAttemptAsFailure(
      tx,
      row,
      attemptId,
      code,
      countsAsAttempt(failure),
      SETTLES_FROM,
      {
        status: failure.kind === 'declined' ? 'declined' : 'failed',
        ...(failure.kind === 'declined' ? { returnCode: failure.returnCode } : {}),
      },
    );
    return keep(tx, ended);
  });
}
