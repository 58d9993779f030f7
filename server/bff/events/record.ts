import type { EventType } from '../../../contract/events';
import type { BffContext } from '../context';
import { findSession, type SessionRow } from '../sessions/store';
import { sessionDetail, sessionMetadata } from '../sessions/views';
import { afterCommit } from '../after-commit';
import { eventDeliveryOf } from './delivery';
import { insertEvent } from './store';

/**
 * The events of the BFF's changes, written through `ctx.db` — the transaction of the change
 * (sessions/transition.ts) — so a change and its event commit together. Each fact has one
 * dedup key: whoever records it twice (two instances, a retry) adds nothing the second time.
 */

async function record(
  ctx: BffContext,
  type: EventType,
  key: string,
  data: unknown,
  sessionId: string | null,
  at: Date,
): Promise<string | null> {
  const id = await insertEvent(ctx.db, {
    type,
    data,
    sessionId,
    dedupKey: `${type}:${key}`,
    at,
    deliver: ctx.config.eventsUrl !== '',
  });
  // Delivered once committed; a caller outside a transaction kicks delivery itself.
  if (id) afterCommit(ctx.db, 'deliver events', (c) => eventDeliveryOf(c)?.kick());
  return id;
}

/**
 * A session that has just ended: `checkout_session.<status>` with the session as the merchant
 * API shows it; for a subscription checkout that succeeded, `subscription.created`, when its
 * first billing was paid `billing.paid`, and when the merchant canceled the subscription
 * while the checkout was pending (subscriptions/service.ts) `subscription.canceled`.
 */
export async function recordSessionEvents(
  ctx: BffContext,
  row: SessionRow,
  at: Date,
): Promise<void> {
  const status = row.status;
  if (status !== 'succeeded' && status !== 'failed' && status !== 'expired') return;
  const detail = await sessionDetail(ctx, row);
  await record(ctx, `checkout_session.${status}`, row.id, detail, row.id, at);
  const paid = detail.payment;
  if (status !== 'succeeded' || !paid?.subscriptionId) return;
  const subscription = {
    id: paid.subscriptionId,
    status: 'Active',
    sessionId: row.id,
    // The plan as the subscription bills it: its first billing's amount, should the plan have
    // been re-priced while it was subscribed (payments/subscribe.ts; it is then canceled).
    plan: detail.plan && { ...detail.plan, amount: paid.amount },
    metadata: detail.metadata,
    createdAt: at.toISOString(),
  };
  await record(ctx, 'subscription.created', paid.subscriptionId, subscription, row.id, at);
  const first = paid.firstBilling;
  if (first && first.status === 'Paid') {
    await record(
      ctx,
      'billing.paid',
      first.id,
      { ...first, installment: 1, subscriptionId: paid.subscriptionId, sessionId: row.id },
      row.id,
      at,
    );
  }
  // Canceled by the merchant while the checkout was pending: told now, after its creation.
  const canceled = await ctx.db
    .selectFrom('payment_attempts')
    .select('subscription_canceled_json')
    .where('subscription_id', '=', paid.subscriptionId)
    .where('session_id', '=', row.id)
    .where('subscription_canceled_json', 'is not', null)
    .executeTakeFirst();
  if (canceled?.subscription_canceled_json) {
    const data = JSON.parse(canceled.subscription_canceled_json) as { id: string };
    await recordSubscriptionCanceled(ctx, data, row.id, at);
  }
}

/** `payment.canceled`: the payment of an attempt was canceled at the gateway (confirmed). */
export async function recordCancelEvent(
  ctx: BffContext,
  attemptId: string,
  at: Date,
): Promise<void> {
  const attempt = await ctx.db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('id', '=', attemptId)
    .executeTakeFirst();
  if (!attempt) return;
  const session = await findSession(ctx.db, attempt.session_id);
  const data = {
    paymentId: attempt.payment_id,
    sessionId: attempt.session_id,
    attemptId,
    amount: Number(attempt.amount),
    currency: 'BRL',
    method: attempt.method,
    nsu: attempt.nsu,
    authorizationCode: attempt.authorization_code,
    canceledAt: attempt.canceled_at,
    metadata: session ? sessionMetadata(session) : {},
  };
  await record(ctx, 'payment.canceled', attemptId, data, attempt.session_id, at);
}

/** `subscription.canceled` (once per subscription). Resolves whether it was new. */
export async function recordSubscriptionCanceled(
  ctx: BffContext,
  subscription: { id: string },
  sessionId: string,
  at: Date = ctx.clock.now(),
): Promise<boolean> {
  const id = await record(
    ctx,
    'subscription.canceled',
    subscription.id,
    subscription,
    sessionId,
    at,
  );
  return id !== null;
}
