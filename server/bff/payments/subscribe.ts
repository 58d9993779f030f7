import type { Logger } from 'pino';
import { MS } from '../../lib/clock';
import type { Billing, CardInfo, Subscription } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import type { FailureCode, PayResult } from '../checkout-api';
import type { BffContext } from '../context';
import { atomically } from '../atomic';
import { endAttemptAsFailure, planTermsOf, settledMeanwhile } from '../sessions/service';
import { transitionSession } from '../sessions/transition';
import { updateAttempt, updateAttemptInFlight, type SessionRow } from '../sessions/store';
import {
  canceledSubscription,
  firstBillingFailure,
  firstBillingOf,
} from '../subscriptions/service';
import { classifyGatewayError } from './outcomes';
import { orderNumberOf, shownPlan, termsAsShown } from './pay-common';
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
 * What the resolver knows of a subscription with no first billing found: the subscription as
 * read (status and plan), and whether the billings due on its creation day were read to their
 * end without its first one (so nothing was billed when it was made).
 */
export interface SubscriptionRead {
  subscription: Subscription;
  unbilled: boolean;
}

/**
 * Settles a subscription attempt from its first billing (pay, or the resolver after a crash).
 * A billing that was not paid cancels the subscription and tells the shopper why; a Paid
 * billing, or none yet on a subscription with a trial, leaves the subscription standing; none
 * found on one without leaves the attempt unknown (the resolver reads it again).
 * Terms the session did not show (the plan changed between the pay's check and the
 * subscription: amount, interval, number of charges or trial) are told by the gateway's
 * subscription itself: while it is not Canceled its plan is in use, so frozen, and those are
 * the terms it bills (spec plan rule 6). A paid first billing on other terms, or whose
 * subscription was canceled meanwhile, stays the shopper's payment at the amount charged, its
 * subscription canceled and told canceled; nothing charged yet: canceled, the session expires.
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
  read?: SubscriptionRead,
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
    const sub = read?.subscription ?? (await readSubscription(ctx, subscriptionId));
    if (!sub) return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    return settleUnbilled(ctx, row, attemptId, sub, read?.unbilled, evidence, log);
  }
  const code = firstBillingFailure(billing.status);
  if (!code) {
    const sale = billing.status === 'Paid' ? await firstBillingSale(ctx, attemptId, log) : {};
    const charged = reaisToCents(billing.amount);
    const sub = billing.subscription;
    const canceled = sub.status === 'Canceled';
    if (!canceled && termsAsShown(row, { ...planTermsOf(sub.plan), amount: charged })) {
      return succeed(ctx, row.id, attemptId, { ...evidence, ...sale });
    }
    // Paid on terms never shown, or its subscription canceled since (by the BFF for such
    // terms, its answer lost, or by the merchant; its plan, unused since, may have changed
    // again): the charge stands (it happened), told at its amount; the subscription bills no
    // more, and the merchant is told so.
    const told = canceled
      ? toldCanceled(ctx, row, sub, charged)
      : await cancelTermsNotShown(ctx, row, billing, log);
    if (!told) return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
    return succeed(ctx, row.id, attemptId, {
      ...evidence,
      ...sale,
      amount: charged,
      subscription_canceled_json: JSON.stringify(told),
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

/**
 * A subscription with no first billing found. Canceled: nothing was billed if the session
 * showed a trial (the BFF's own drop of terms not shown whose answer was lost, or a cancel at
 * the gateway), or if its creation day's billings were read without it (`unbilled`): the
 * session ends; decided from the subscription, not from its plan, which may have changed
 * again since. Standing: a trial by its own terms charged nothing yet, and stands if those are
 * the terms shown (else canceled, the session expired); without a trial the gateway billed the
 * first installment when it was made, and not found (beyond the pages read) is not paid:
 * unknown until it is found.
 */
async function settleUnbilled(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  sub: Subscription,
  unbilled: boolean | undefined,
  evidence: { subscription_id: string },
  log: Logger,
): Promise<PayResult> {
  const terms = planTermsOf(sub.plan);
  if (sub.status === 'Canceled') {
    if (unbilled ?? (shownPlan(row)?.trialDays ?? 0) > 0) {
      return dropTermsNotShown(ctx, row, attemptId, sub.id, evidence, log);
    }
  } else if (terms.trialDays > 0) {
    if (!termsAsShown(row, terms)) {
      return dropTermsNotShown(ctx, row, attemptId, sub.id, evidence, log);
    }
    // A trial: nothing is billed yet; the answer says so (succeededResult).
    return succeed(ctx, row.id, attemptId, { ...evidence, trial_days: terms.trialDays });
  }
  log.warn({ subscriptionId: sub.id }, 'first billing not found: the outcome waits for it');
  return settle(ctx, row, attemptId, { kind: 'unknown' }, log);
}

/** Whether a subscription standing bills after a trial (no billing when it was made). */
export function billsTrial(sub: Subscription): boolean {
  return sub.status !== 'Canceled' && planTermsOf(sub.plan).trialDays > 0;
}

/** The subscription as the gateway has it now (its plan nested); null when not read now. */
export async function readSubscription(
  ctx: BffContext,
  subscriptionId: string,
): Promise<Subscription | null> {
  try {
    return await ctx.gateway.getSubscription(subscriptionId, { timeoutMs: 10_000 });
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    return null;
  }
}

/**
 * The merchant changed the plan between the pay's check (pay.ts `planChanged`) and the
 * subscription: the gateway made it on the plan as it was then, terms the shopper was never
 * shown. Nothing charged yet (a trial by its terms): the subscription is canceled and the
 * session expires, as a pay after the change would have it; the shopper starts again on the
 * plan as it is. The attempt and the session end in one transaction: a crash between would
 * leave the session open beside a canceled subscription.
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
  return atomically(ctx, async (tx): Promise<PayResult> => {
    const ended = await endAttemptAsFailure(tx, row, attemptId, 'session_expired', false, [
      ...SETTLES_FROM,
    ]);
    if (ended.status !== 'failed' || ended.error.code !== 'session_expired') return ended;
    await transitionSession(tx, row.id, 'open', 'expired', tx.clock.now(), {
      failure_code: 'session_expired',
    });
    return {
      status: 'failed',
      error: { code: 'session_expired', retryable: false },
      attemptsLeft: 0,
    };
  });
}

/**
 * A first billing paid on terms the session did not show (the plan changed meanwhile): its
 * subscription is canceled so it charges no more. Resolves what the merchant is told of the
 * cancel (`subscription.canceled`), or null when the gateway did not cancel it yet.
 */
async function cancelTermsNotShown(
  ctx: BffContext,
  row: SessionRow,
  billing: Billing,
  log: Logger,
): Promise<Record<string, unknown> | null> {
  const sub = billing.subscription;
  const charged = reaisToCents(billing.amount);
  log.error(
    {
      event: 'checkout.plan_changed_charged',
      subscriptionId: sub.id,
      shown: { ...shownPlan(row), amount: row.amount },
      billed: { ...planTermsOf(sub.plan), amount: charged },
    },
    'the plan changed while it was subscribed: its first billing was charged on its new terms',
  );
  if (!(await cancelSubscription(ctx, sub.id, 'session_expired', log))) return null;
  return toldCanceled(ctx, row, sub, charged);
}

/**
 * What the merchant is told of a subscription canceled after its first billing: its plan at
 * the amount that billing charged (the plan, unused once canceled, may change again).
 */
function toldCanceled(ctx: BffContext, row: SessionRow, sub: Subscription, charged: number) {
  const told = canceledSubscription(ctx, sub, row.id);
  return { ...told, plan: { ...told.plan, amount: charged } };
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
