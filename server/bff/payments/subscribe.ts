import type { Logger } from 'pino';
import { MS } from '../../lib/clock';
import type { Billing, CardInfo } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import type { FailureCode, PayResult } from '../checkout-api';
import type { BffContext } from '../context';
import { endAttemptAsFailure, settledMeanwhile } from '../sessions/service';
import { transitionSession } from '../sessions/transition';
import { updateAttempt, updateAttemptInFlight, type SessionRow } from '../sessions/store';
import {
  canceledSubscription,
  firstBillingFailure,
  firstBillingOf,
} from '../subscriptions/service';
import { classifyGatewayError } from './outcomes';
import { orderNumberOf, shownPlan } from './pay-common';
import {
  dropKeyOnRefusedCiphertext,
  settle,
  settleError,
  SETTLES_FROM,
  succeed,
} from './settlement';

/**
 * A plan session: the card goes to the gateway's vault and a subscription to the plan is
 * created with the attempt's order number; the gateway then runs the billings (the first one
 * at once unless the plan has a trial). The first billing's evidence is kept on the attempt.
 */
export async function subscribe(
  ctx: BffContext,
  row: SessionRow,
  planId: string,
  attemptId: string,
  cardInfo: CardInfo,
  log: Logger,
): Promise<PayResult> {
  let vaultId: string;
  try {
    ({ vaultId } = await ctx.gateway.vaultCard(
      {
        cardInfo: {
          encryptedCard: cardInfo.encryptedCard!,
          cardholderName: cardInfo.cardholderName,
          ...(cardInfo.brand ? { brand: cardInfo.brand } : {}),
        },
      },
      { idempotencyKey: `${attemptId}-vault` },
    ));
  } catch (err) {
    // Keeping a card charges nothing: a failure here certainly moved no money.
    await dropKeyOnRefusedCiphertext(ctx, err, log);
    const failure = classifyGatewayError(err);
    if (!failure) {
      await settle(ctx, row, attemptId, { kind: 'unavailable' }, log);
      throw err;
    }
    return settle(
      ctx,
      row,
      attemptId,
      failure.kind === 'unknown' ? { kind: 'unavailable' } : failure,
      log,
    );
  }
  let subscriptionId: string;
  try {
    subscriptionId = await ctx.gateway.createSubscription(
      { vaultId, planId, orderNumber: orderNumberOf(attemptId) },
      { idempotencyKey: attemptId },
    );
  } catch (err) {
    return settleError(ctx, row, attemptId, err, log);
  }
  await updateAttempt(ctx.db, attemptId, { subscription_id: subscriptionId });
  let billing: Billing | null;
  try {
    billing = await firstBillingOf(ctx, subscriptionId);
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    // The billing may have been declined: not read is not paid. The resolver reads it later.
    log.warn({ subscriptionId }, 'first billing could not be read: the outcome waits for it');
    return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
  }
  log.info({ subscriptionId, billingStatus: billing?.status ?? null }, 'subscription created');
  return settleSubscription(ctx, row, attemptId, subscriptionId, billing, log);
}

/**
 * Settles a subscription attempt from its first billing (pay, or the resolver after a crash).
 * A billing that was not paid cancels the subscription and tells the shopper why; a Paid
 * billing, or none yet on a plan with a trial, leaves the subscription standing; none found on
 * a plan without one leaves the attempt unknown (the resolver reads it again).
 * A cancel that fails leaves the attempt unknown (`pending`): the subscription may still bill
 * (an `Opened` billing is retried), so the shopper is not told to pay again; the resolver
 * finds the subscription and cancels it again.
 */
export async function settleSubscription(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  subscriptionId: string,
  billing: Billing | null,
  log: Logger,
): Promise<PayResult> {
  const evidence = billing
    ? {
        subscription_id: subscriptionId,
        billing_id: billing.id,
        billing_status: billing.status,
        billing_amount: reaisToCents(billing.amount),
      }
    : { subscription_id: subscriptionId };
  if (!billing) {
    // A trial's subscription found Canceled before any billing started nothing: the BFF's own
    // drop of terms not shown whose answer was lost (the plan, unused since, may have changed
    // again), or a cancel at the gateway. Decided from the subscription, not from the plan.
    const canceled = await trialCanceled(ctx, row, subscriptionId);
    if (canceled === null) return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    if (canceled) return dropTermsNotShown(ctx, row, attemptId, subscriptionId, evidence, log);
    const plan = await planTerms(ctx, row.plan_id);
    const trialDays = plan?.trialDays ?? 0;
    if (trialDays > 0 && plan && plan.amount !== row.amount) {
      return dropTermsNotShown(ctx, row, attemptId, subscriptionId, evidence, log);
    }
    if (trialDays === 0) {
      // No trial: the gateway bills the first installment when the subscription is made. Not
      // found (beyond the pages read, or not read) is not paid: unknown until it is found.
      log.warn({ subscriptionId }, 'first billing not found: the outcome waits for it');
      return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    }
    // A trial: nothing is billed yet; the answer says so (succeededResult).
    return succeed(ctx, row.id, attemptId, { ...evidence, trial_days: trialDays });
  }
  const code = firstBillingFailure(billing.status);
  if (!code) {
    const sale = billing.status === 'Paid' ? await firstBillingSale(ctx, attemptId, log) : {};
    const charged = reaisToCents(billing.amount);
    if (charged === row.amount) return succeed(ctx, row.id, attemptId, { ...evidence, ...sale });
    // Paid on terms never shown: the charge stands (it happened), told at its amount; the
    // subscription bills no more.
    const canceled = await cancelTermsNotShown(ctx, row, billing, log);
    if (!canceled) return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    return succeed(ctx, row.id, attemptId, {
      ...evidence,
      ...sale,
      amount: charged,
      subscription_canceled_json: JSON.stringify(canceled),
    });
  }
  if (!(await updateAttemptInFlight(ctx.db, attemptId, evidence))) {
    return settledMeanwhile(ctx, row.id, attemptId);
  }
  if (
    !(await cancelOpenedBilling(ctx, billing, log)) ||
    !(await cancelSubscription(ctx, subscriptionId, code, log))
  ) {
    return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
  }
  return endAttemptAsFailure(ctx, row, attemptId, code, true, SETTLES_FROM, {
    status: 'declined',
  });
}

/** Whether the plan starts with a trial (no billing at creation); false when it cannot be read. */
export async function planHasTrial(ctx: BffContext, planId: string | null): Promise<boolean> {
  return ((await planTerms(ctx, planId))?.trialDays ?? 0) > 0;
}

/**
 * Whether the subscription of a session that showed a trial is Canceled (false when the
 * session showed none: not read); null when it cannot be read now.
 */
async function trialCanceled(
  ctx: BffContext,
  row: SessionRow,
  subscriptionId: string,
): Promise<boolean | null> {
  if (!shownPlan(row)?.trialDays) return false;
  try {
    const sub = await ctx.gateway.getSubscription(subscriptionId, { timeoutMs: 10_000 });
    return sub.status === 'Canceled';
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    return null;
  }
}

/**
 * The plan's amount (cents) and trial days as the gateway bills them now; null when it cannot
 * be read. A plan a subscription uses keeps its amount (spec plan rule 6): for one just made,
 * what its billings will charge.
 */
async function planTerms(
  ctx: BffContext,
  planId: string | null,
): Promise<{ amount: number; trialDays: number } | null> {
  if (!planId) return null;
  try {
    const plan = await ctx.gateway.getPlan(planId, { timeoutMs: 10_000 });
    return { amount: reaisToCents(plan.amount), trialDays: Math.max(0, plan.trialDays ?? 0) };
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    return null;
  }
}

/**
 * The merchant changed the plan's amount between the pay's check (pay.ts `planChanged`) and
 * the subscription: the gateway made it on the plan as it is, terms the shopper was never
 * shown. Nothing charged yet (a trial): the subscription is canceled and the session expires,
 * as a pay after the change would have it; the shopper starts again on the plan as it is.
 */
async function dropTermsNotShown(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  subscriptionId: string,
  evidence: { subscription_id: string },
  log: Logger,
): Promise<PayResult> {
  if (!(await updateAttemptInFlight(ctx.db, attemptId, evidence))) {
    return settledMeanwhile(ctx, row.id, attemptId);
  }
  if (!(await cancelSubscription(ctx, subscriptionId, 'session_expired', log))) {
    return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
  }
  const ended = await endAttemptAsFailure(ctx, row, attemptId, 'session_expired', false, [
    ...SETTLES_FROM,
  ]);
  if (ended.status !== 'failed' || ended.error.code !== 'session_expired') return ended;
  await transitionSession(ctx, row.id, 'open', 'expired', ctx.clock.now(), {
    failure_code: 'session_expired',
  });
  return {
    status: 'failed',
    error: { code: 'session_expired', retryable: false },
    attemptsLeft: 0,
  };
}

/**
 * A first billing paid at another amount than the session showed (the plan changed meanwhile):
 * its subscription is canceled so it charges no more. Resolves what the merchant is told of
 * the cancel (`subscription.canceled`), or null when the gateway did not cancel it yet.
 */
async function cancelTermsNotShown(
  ctx: BffContext,
  row: SessionRow,
  billing: Billing,
  log: Logger,
): Promise<Record<string, unknown> | null> {
  const sub = billing.subscription;
  log.error(
    {
      event: 'checkout.plan_changed_charged',
      subscriptionId: sub.id,
      shown: row.amount,
      charged: reaisToCents(billing.amount),
    },
    'the plan changed while it was subscribed: its first billing was charged at the new amount',
  );
  if (!(await cancelSubscription(ctx, sub.id, 'session_expired', log))) return null;
  return canceledSubscription(ctx, sub, row.id);
}

/**
 * The first billing's sale in the gateway's ledger (its reference is the order number): the
 * NSU, authorization code and payment id the shopper and the merchant are shown. Best effort:
 * when the ledger cannot be read now, the billing's Authorized notification brings them.
 */
async function firstBillingSale(
  ctx: BffContext,
  attemptId: string,
  log: Logger,
): Promise<{ nsu?: string; authorization_code?: string | null; payment_id?: string | null }> {
  const reference = orderNumberOf(attemptId);
  const now = ctx.clock.now().getTime();
  const day = (offset: number) => new Date(now + offset * MS.day).toISOString().slice(0, 10);
  try {
    const rows = await ctx.gateway.searchConcilByOperationDate(
      { accountNumber: ctx.config.accountNumber, startDate: day(-1), endDate: day(1) },
      { timeoutMs: 5_000 },
    );
    const sale = rows.find((r) => r.transactionReference === reference);
    if (!sale) return {};
    return {
      nsu: sale.nsu,
      authorization_code: sale.codAuth ?? null,
      payment_id: sale.transactionPaymentIdWeb ?? null,
    };
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    log.warn({ attemptId }, 'first billing sale not read from the ledger yet');
    return {};
  }
}

/**
 * An `Opened` first billing (waiting for a retry, or not processed yet) is canceled itself:
 * the spec gives the billing cancel as the way to stop a payment not yet finalized, and says
 * nothing of what canceling its subscription does to it (the gateway may still retry it and
 * charge the card while the shopper pays with another). False when it was not canceled: the
 * refusal may mean it was paid meanwhile, so the attempt stays unknown and is read again.
 */
async function cancelOpenedBilling(ctx: BffContext, billing: Billing, log: Logger) {
  if (billing.status !== 'Opened') return true;
  try {
    await ctx.gateway.cancelBilling(billing.id, { timeoutMs: 10_000 });
    return true;
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    log.error(
      { event: 'billing.cancel_failed', billingId: billing.id },
      'first billing waiting for a retry not canceled yet: pending, tried again',
    );
    return false;
  }
}

/**
 * Cancels the subscription of an unpaid first billing, or of terms never shown; false when the
 * gateway did not.
 */
async function cancelSubscription(
  ctx: BffContext,
  subscriptionId: string,
  code: FailureCode,
  log: Logger,
): Promise<boolean> {
  log.info({ subscriptionId, failureCode: code }, 'subscription not kept: canceling it');
  try {
    await ctx.gateway.setSubscriptionStatus(
      { subscriptionId, status: 'Canceled' },
      { timeoutMs: 10_000 },
    );
    return true;
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    log.error(
      { event: 'subscription.cancel_failed', subscriptionId },
      'subscription with an unpaid first billing not canceled yet: pending, tried again',
    );
    return false;
  }
}
