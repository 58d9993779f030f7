import type { Selectable } from 'kysely';
import type { SandboxContext } from '../context';
import { refuse, type Result, type SearchEnvelope } from './common';
import { LAST_DATE, spStartOfDay, spStartOfNextDay } from '../reconciliation/calendar';
import {
  selectSubscriptionsWithPlan,
  splitJoined,
  subscriptionView,
  type SubscriptionView,
} from './subscriptions';
import type { BillingSearchQuery } from './schemas';
import type { BillingStatus, RecurrenceTables } from './store';

export type BillingRow = Selectable<RecurrenceTables['recurrence_billings']>;

/** A billing as the API answers it (spec: Billing, subscription and plan nested). */
export interface BillingView {
  id: string;
  status: BillingStatus;
  expireAt: string;
  amount: number;
  installment: number;
  subscription: SubscriptionView;
  createdBy: string;
  modifiedBy: string;
  createdDate: string;
  modifiedDate: string;
}

/** Who made and changed billings: the engine, not a user. */
const SYSTEM = 'system';

const BILLING_ORDER_COLUMNS = {
  createdDate: 'b.created_date',
  expireAt: 'b.expire_at',
  amount: 'b.amount',
  status: 'b.status',
  installment: 'b.installment',
} as const;

export async function searchBillings(
  ctx: SandboxContext,
  userName: string,
  q: BillingSearchQuery,
): Promise<SearchEnvelope<BillingView>> {
  let base = ctx.db
    .selectFrom('recurrence_billings as b')
    .innerJoin('recurrence_subscriptions as s', 's.id', 'b.subscription_id')
    .innerJoin('recurrence_plans as p', 'p.id', 's.plan_id')
    .where('b.user_name', '=', userName);
  if (q.mid !== undefined) base = base.where('p.merchant_id', '=', q.mid);
  if (q.status !== undefined) base = base.where('b.status', '=', q.status);
  // Calendar days in America/Sao_Paulo, both bounds inclusive.
  if (q.expirationDateRangeStartDate !== undefined) {
    base = base.where(
      'b.expire_at',
      '>=',
      spStartOfDay(q.expirationDateRangeStartDate).toISOString(),
    );
  }
  // The last day a date can name is an open end (its next day, in year 10000, has no ISO form
  // that compares as text with the stored instants).
  const end = q.expirationDateRangeEndDate;
  if (end !== undefined && end < LAST_DATE) {
    base = base.where('b.expire_at', '<', spStartOfNextDay(end).toISOString());
  }
  const { total } = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const dir = q.orderBy.desc ? 'desc' : 'asc';
  const rows = await base
    .selectAll('b')
    .orderBy(BILLING_ORDER_COLUMNS[q.orderBy.field], dir)
    .orderBy('b.id', dir)
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)
    .execute();
  const subIds = [...new Set(rows.map((r) => r.subscription_id))];
  const subs = new Map<string, SubscriptionView>();
  if (subIds.length > 0) {
    for (const r of await selectSubscriptionsWithPlan(ctx).where('s.id', 'in', subIds).execute()) {
      const { sub, plan } = splitJoined(r);
      subs.set(sub.id, subscriptionView(sub, plan));
    }
  }
  return {
    items: rows.map((r) => billingView(r, subs.get(r.subscription_id)!)),
    page: q.page,
    limit: q.limit,
    total: Number(total),
  };
}

export function billingView(row: BillingRow, subscription: SubscriptionView): BillingView {
  return {
    id: row.id,
    status: row.status,
    expireAt: row.expire_at,
    amount: row.amount,
    installment: row.installment,
    subscription,
    createdBy: SYSTEM,
    modifiedBy: SYSTEM,
    createdDate: row.created_date,
    modifiedDate: row.modified_date,
  };
}

/**
 * Cancels a billing not yet finalized: `Opened`, including one waiting for a retry. Paid,
 * Denied, PaymentInvalid and Canceled billings are final.
 */
export async function cancelBilling(
  ctx: SandboxContext,
  userName: string,
  id: string,
): Promise<Result<string>> {
  const row = await ctx.db
    .selectFrom('recurrence_billings')
    .select(['id', 'status', 'subscription_id'])
    .where('user_name', '=', userName)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return refuse(404, 'billingId', 'no billing with this id');
  if (row.status !== 'Opened') {
    return refuse(
      400,
      'billingId',
      `the billing is ${row.status}, which is final; only an Opened billing can be canceled`,
    );
  }
  const at = ctx.clock.now().toISOString();
  await ctx.db
    .updateTable('recurrence_billings')
    .set({ status: 'Canceled', next_attempt_at: null, modified_date: at })
    .where('id', '=', id)
    .where('status', '=', 'Opened')
    .execute();
  // The last installment of a plan with an end, canceled: the subscription ends, as it does
  // when that installment is paid or denied.
  await endIfComplete(ctx, row.subscription_id, at);
  return { ok: true, value: id };
}

/**
 * A subscription whose last installment is settled (paid, denied or canceled) ends: Canceled
 * by the system. No billing left Opened, and none left to make (`next_billing_at` null).
 */
export async function endIfComplete(
  ctx: SandboxContext,
  subscriptionId: string,
  at: string,
): Promise<void> {
  const open = await ctx.db
    .selectFrom('recurrence_billings')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'Opened')
    .executeTakeFirst();
  if (open) return;
  await ctx.db
    .updateTable('recurrence_subscriptions')
    .set({ status: 'Canceled', modified_date: at })
    .where('id', '=', subscriptionId)
    .where('status', '=', 'Active')
    .where('next_billing_at', 'is', null)
    .execute();
}
