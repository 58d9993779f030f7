import type { Selectable } from 'kysely';
import { uuidV7 } from '../../lib/ids';
import type { SandboxClient } from '../clients';
import type { SandboxContext } from '../context';
import {
  addDaysIso,
  containsInsensitive,
  refuse,
  type Result,
  type SearchEnvelope,
} from './common';
import { planView, type PlanRow, type PlanView } from './plans';
import type { CreateSubscriptionBody, SubscriptionSearchQuery } from './schemas';
import type { RecurrenceTables, SubscriptionStatus } from './store';
import type { VaultPort } from './vault-port';

export type SubscriptionRow = Selectable<RecurrenceTables['recurrence_subscriptions']>;

/** A subscription as the API answers it (spec: Subscription, plan nested). */
export interface SubscriptionView {
  id: string;
  vaultId: string;
  orderNumber: string;
  status: SubscriptionStatus;
  plan: PlanView;
  createdBy: string;
  createdDate: string;
}

export function subscriptionView(row: SubscriptionRow, plan: PlanRow): SubscriptionView {
  return {
    id: row.id,
    vaultId: row.vault_id,
    orderNumber: row.order_number,
    status: row.status,
    plan: planView(plan),
    createdBy: row.created_by,
    createdDate: row.created_date,
  };
}

/** Subscription rows joined with their plan, the plan's columns prefixed `p_`. */
export function selectSubscriptionsWithPlan(ctx: SandboxContext) {
  return ctx.db
    .selectFrom('recurrence_subscriptions as s')
    .innerJoin('recurrence_plans as p', 'p.id', 's.plan_id')
    .selectAll('s')
    .select([
      'p.id as p_id',
      'p.user_name as p_user_name',
      'p.merchant_id as p_merchant_id',
      'p.name as p_name',
      'p.description as p_description',
      'p.amount as p_amount',
      'p.plan_type as p_plan_type',
      'p.trial_days as p_trial_days',
      'p.payment_method as p_payment_method',
      'p.interval_days as p_interval_days',
      'p.installments as p_installments',
      'p.status as p_status',
      'p.attempts as p_attempts',
      'p.created_date as p_created_date',
      'p.created_by as p_created_by',
      'p.modified_date as p_modified_date',
    ]);
}

type Joined = SubscriptionRow & { [K in keyof PlanRow as `p_${K & string}`]: PlanRow[K] };

export function splitJoined(r: Joined): { sub: SubscriptionRow; plan: PlanRow } {
  const sub: SubscriptionRow = {
    id: r.id,
    user_name: r.user_name,
    plan_id: r.plan_id,
    vault_id: r.vault_id,
    order_number: r.order_number,
    status: r.status,
    created_date: r.created_date,
    created_by: r.created_by,
    modified_date: r.modified_date,
    next_installment: r.next_installment,
    next_billing_at: r.next_billing_at,
    blocked_at: r.blocked_at,
    vault_renewed: r.vault_renewed,
  };
  const plan: PlanRow = {
    id: r.p_id,
    user_name: r.p_user_name,
    merchant_id: r.p_merchant_id,
    name: r.p_name,
    description: r.p_description,
    amount: r.p_amount,
    plan_type: r.p_plan_type,
    trial_days: r.p_trial_days,
    payment_method: r.p_payment_method,
    interval_days: r.p_interval_days,
    installments: r.p_installments,
    status: r.p_status,
    attempts: r.p_attempts,
    created_date: r.p_created_date,
    created_by: r.p_created_by,
    modified_date: r.p_modified_date,
  };
  return { sub, plan };
}

/**
 * Creates an Active subscription. Its first billing falls due `trialDays` after creation; with
 * no trial that is the creation instant, and the route runs the due work before answering.
 */
export async function createSubscription(
  ctx: SandboxContext,
  vaults: VaultPort,
  client: SandboxClient,
  body: CreateSubscriptionBody,
): Promise<Result<{ id: string; dueNow: boolean }>> {
  const plan = await ctx.db
    .selectFrom('recurrence_plans')
    .selectAll()
    .where('user_name', '=', client.userName)
    .where('id', '=', body.planId)
    .executeTakeFirst();
  if (!plan) return refuse(400, 'planId', 'no plan with this id for this client');
  if (plan.status !== 'Active') {
    return refuse(
      400,
      'planId',
      `the plan is ${plan.status}; only an Active plan takes new subscriptions`,
    );
  }
  const vault = await vaults.find(ctx, client.userName, body.vaultId);
  if (!vault) {
    return refuse(
      400,
      'vaultId',
      'no card vault with this id for this client (POST /v1/cards/vault)',
    );
  }
  const now = ctx.clock.now().toISOString();
  // Time-ordered: the engine charges a cycle in id order, which is then the order the rows were
  // written in, so each batch updates neighbouring pages instead of pages all over the table.
  const id = uuidV7(ctx.clock.now());
  await ctx.db
    .insertInto('recurrence_subscriptions')
    .values({
      id,
      user_name: client.userName,
      plan_id: plan.id,
      vault_id: body.vaultId,
      order_number: body.orderNumber,
      status: 'Active',
      created_date: now,
      created_by: client.userName,
      modified_date: now,
      next_installment: 1,
      next_billing_at: addDaysIso(now, plan.trial_days),
      blocked_at: null,
      vault_renewed: 0,
    })
    .execute();
  return { ok: true, value: { id, dueNow: plan.trial_days === 0 } };
}

export async function getSubscription(
  ctx: SandboxContext,
  userName: string,
  id: string,
): Promise<Result<SubscriptionView>> {
  const row = await selectSubscriptionsWithPlan(ctx)
    .where('s.user_name', '=', userName)
    .where('s.id', '=', id)
    .executeTakeFirst();
  if (!row) return refuse(404, 'subscriptionId', 'no subscription with this id');
  const { sub, plan } = splitJoined(row);
  return { ok: true, value: subscriptionView(sub, plan) };
}

const SUBSCRIPTION_ORDER_COLUMNS = {
  createdDate: 's.created_date',
  status: 's.status',
  orderNumber: 's.order_number',
  planName: 'p.name',
} as const;

export async function searchSubscriptions(
  ctx: SandboxContext,
  userName: string,
  q: SubscriptionSearchQuery,
): Promise<SearchEnvelope<SubscriptionView>> {
  let base = ctx.db
    .selectFrom('recurrence_subscriptions as s')
    .innerJoin('recurrence_plans as p', 'p.id', 's.plan_id')
    .where('s.user_name', '=', userName);
  if (q.planName !== undefined && q.planName !== '') {
    base = base.where(containsInsensitive('p.name', q.planName));
  }
  if (q.status !== undefined) base = base.where('s.status', '=', q.status);
  const { total } = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const dir = q.orderBy.desc ? 'desc' : 'asc';
  let rows = selectSubscriptionsWithPlan(ctx).where('s.user_name', '=', userName);
  if (q.planName !== undefined && q.planName !== '') {
    rows = rows.where(containsInsensitive('p.name', q.planName));
  }
  if (q.status !== undefined) rows = rows.where('s.status', '=', q.status);
  const page = await rows
    .orderBy(SUBSCRIPTION_ORDER_COLUMNS[q.orderBy.field], dir)
    .orderBy('s.id', dir)
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)
    .execute();
  return {
    items: page.map((r) => {
      const { sub, plan } = splitJoined(r);
      return subscriptionView(sub, plan);
    }),
    page: q.page,
    limit: q.limit,
    total: Number(total),
  };
}

async function findRow(
  ctx: SandboxContext,
  userName: string,
  id: string,
): Promise<SubscriptionRow | undefined> {
  return ctx.db
    .selectFrom('recurrence_subscriptions')
    .selectAll()
    .where('user_name', '=', userName)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Cancels a subscription and its billings not yet finalized (used by status and the engine). */
export async function cancelSubscriptionRow(
  ctx: SandboxContext,
  id: string,
  now: string,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('recurrence_billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_date: now })
      .where('subscription_id', '=', id)
      .where('status', '=', 'Opened')
      .execute();
    await trx
      .updateTable('recurrence_subscriptions')
      .set({ status: 'Canceled', next_billing_at: null, modified_date: now })
      .where('id', '=', id)
      .execute();
  });
}

/**
 * `Actived` / `Canceled`. Canceled is final. A Blocked subscription (canceled card) comes back
 * with `Actived` only after a new vault was set; billing then resumes with the next installment
 * (due at once when its date passed while blocked). Asking for the current status is accepted.
 */
export async function setSubscriptionStatus(
  ctx: SandboxContext,
  userName: string,
  id: string,
  status: 'Actived' | 'Canceled',
): Promise<Result<{ id: string; dueNow: boolean }>> {
  const row = await findRow(ctx, userName, id);
  if (!row) return refuse(404, 'subscriptionId', 'no subscription with this id');
  const now = ctx.clock.now().toISOString();
  if (status === 'Canceled') {
    if (row.status !== 'Canceled') await cancelSubscriptionRow(ctx, id, now);
    return { ok: true, value: { id, dueNow: false } };
  }
  if (row.status === 'Active') return { ok: true, value: { id, dueNow: false } };
  if (row.status === 'Canceled') {
    return refuse(
      400,
      'status',
      'the subscription is Canceled, which is final; create a new subscription',
    );
  }
  // Blocked.
  if (!row.vault_renewed) {
    return refuse(
      400,
      'status',
      'the subscription is Blocked because its card was canceled; set a new card with POST /v1/recurrences/subscriptions/{id}/vault, then send Actived',
    );
  }
  const plan = await ctx.db
    .selectFrom('recurrence_plans')
    .select('status')
    .where('id', '=', row.plan_id)
    .executeTakeFirstOrThrow();
  if (plan.status === 'Canceled') {
    return refuse(400, 'status', 'the plan is Canceled; the subscription cannot be reactivated');
  }
  const nextAt =
    row.next_billing_at !== null && row.next_billing_at < now ? now : row.next_billing_at;
  await ctx.db
    .updateTable('recurrence_subscriptions')
    .set({
      status: 'Active',
      blocked_at: null,
      vault_renewed: 0,
      next_billing_at: nextAt,
      modified_date: now,
    })
    .where('id', '=', id)
    .execute();
  return { ok: true, value: { id, dueNow: nextAt !== null && nextAt <= now } };
}

/** Replaces the card of a subscription; on a Blocked one it is the first step to reactivate. */
export async function setSubscriptionVault(
  ctx: SandboxContext,
  vaults: VaultPort,
  userName: string,
  id: string,
  vaultId: string,
): Promise<Result<string>> {
  const row = await findRow(ctx, userName, id);
  if (!row) return refuse(404, 'subscriptionId', 'no subscription with this id');
  if (row.status === 'Canceled') {
    return refuse(400, 'subscriptionId', 'the subscription is Canceled; its card cannot change');
  }
  if (row.status === 'Blocked' && vaultId === row.vault_id) {
    return refuse(
      400,
      'vaultId',
      'is the card that was canceled; vault a new card and send its id',
    );
  }
  if (!(await vaults.find(ctx, userName, vaultId))) {
    return refuse(
      400,
      'vaultId',
      'no card vault with this id for this client (POST /v1/cards/vault)',
    );
  }
  await ctx.db
    .updateTable('recurrence_subscriptions')
    .set({
      vault_id: vaultId,
      vault_renewed: row.status === 'Blocked' ? 1 : row.vault_renewed,
      modified_date: ctx.clock.now().toISOString(),
    })
    .where('id', '=', id)
    .execute();
  return { ok: true, value: id };
}
