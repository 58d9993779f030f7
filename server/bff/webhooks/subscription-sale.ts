import { createHash } from 'node:crypto';
import type { ConcilInstallmentRow, Subscription } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import { eventDeliveryOf } from '../events/delivery';
import { insertEvent } from '../events/store';
import { answeredNotFound, classifyGatewayError } from '../payments/outcomes';
import { findSession } from '../sessions/store';
import { sessionMetadata } from '../sessions/views';
import type { InboxTables } from './store';

type InboxRow = InboxTables['webhook_inbox'];

/** A checkout attempt that made a subscription (succeeded, its subscription id kept). */
export interface SubscriptionAttempt {
  id: string;
  session_id: string;
  subscription_id: string;
  nsu: string | null;
}

/**
 * The fewest days between two billings of a plan type, when the plan does not say its
 * interval: a calendar month may be 28 days, so a later billing is never taken for the first.
 */
const MIN_INTERVAL_DAYS: Record<string, number> = {
  Monthly: 28,
  Bimonthly: 59,
  Quarterly: 89,
  Semesterly: 181,
  Yearly: 365,
};

/**
 * Whether a sale carrying a subscription's order number is its first billing's: made before
 * the second billing fell due (creation + trial + interval, by the gateway's clock), when no
 * other billing of it existed. A later one may also be the first billing paid on a late retry
 * (an interval shorter than the retries): not told apart, so not taken for the first.
 * `unreadable` when the subscription cannot be read now.
 */
export async function isFirstBillingSale(
  ctx: BffContext,
  subscriptionId: string,
  sale: readonly ConcilInstallmentRow[],
): Promise<boolean | 'unreadable'> {
  let sub: Subscription;
  try {
    sub = await ctx.gateway.getSubscription(subscriptionId, { timeoutMs: 10_000 });
  } catch (err) {
    if (answeredNotFound(err)) return false;
    if (!classifyGatewayError(err)) throw err;
    return 'unreadable';
  }
  const interval =
    sub.plan.interval && sub.plan.interval > 0
      ? sub.plan.interval
      : (MIN_INTERVAL_DAYS[sub.plan.planType] ?? 0);
  if (interval <= 0) return false;
  const secondDue = Date.parse(sub.createdDate) + ((sub.plan.trialDays ?? 0) + interval) * MS.day;
  const made = Math.min(...sale.map((r) => Date.parse(r.transactionDate)));
  return Number.isFinite(made) && Number.isFinite(secondDue) && made < secondDue;
}

/**
 * `billing.canceled`, once per sale: the gateway canceled (confirmed against its ledger) the
 * charge of one of the subscription's later billings. The sale names it — the billing search
 * carries no payment id to tell which installment it was.
 */
export async function recordBillingCanceled(
  ctx: BffContext,
  attempt: SubscriptionAttempt,
  row: InboxRow,
  sale: readonly ConcilInstallmentRow[],
): Promise<void> {
  const session = await findSession(ctx.db, attempt.session_id);
  const first = sale[0]!;
  const id = await insertEvent(ctx.db, {
    type: 'billing.canceled',
    data: {
      subscriptionId: attempt.subscription_id,
      sessionId: attempt.session_id,
      paymentId: first.transactionPaymentIdWeb ?? null,
      nsu: row.nsu,
      authorizationCode: row.cod_auth === '' ? null : row.cod_auth,
      amount: reaisToCents(first.transactionTotalValue),
      currency: 'BRL',
      canceledAt: row.moment,
      metadata: session ? sessionMetadata(session) : {},
    },
    sessionId: attempt.session_id,
    // The sale's NSU and code, hashed: together they may be longer than a dedup key holds.
    dedupKey: `billing.canceled:${createHash('sha256').update(`${row.nsu}\n${row.cod_auth}`).digest('base64url')}`,
    at: ctx.clock.now(),
    deliver: ctx.config.eventsUrl !== '',
  });
  if (id) eventDeliveryOf(ctx)?.kick();
}
