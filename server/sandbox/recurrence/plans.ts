import type { Selectable } from 'kysely';
import { uuid } from '../../lib/ids';
import type { SandboxClient } from '../clients';
import type { SandboxContext } from '../context';
import {
  containsInsensitive,
  refuse,
  type Refusal,
  type Result,
  type SearchEnvelope,
} from './common';
import {
  PLAN_TYPE_SCHEDULE,
  type CreatePlanBody,
  type PlanSearchQuery,
  type UpdatePlanBody,
} from './schemas';
import type { PlanStatus, PlanType, RecurrenceTables } from './store';

export type PlanRow = Selectable<RecurrenceTables['recurrence_plans']>;

/** A plan as the API answers it (spec: Plan). */
export interface PlanView {
  id: string;
  merchantId: string;
  name: string;
  description: string;
  amount: number;
  planType: PlanType;
  trialDays: number;
  paymentMethod: 'CreditCard';
  interval: number;
  installments: number;
  status: PlanStatus;
  attempts: number;
  createdDate: string;
  createdBy: string;
}

export function planView(row: PlanRow): PlanView {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    description: row.description,
    amount: row.amount,
    planType: row.plan_type,
    trialDays: row.trial_days,
    paymentMethod: row.payment_method,
    interval: row.interval_days,
    installments: row.installments,
    status: row.status,
    attempts: row.attempts,
    createdDate: row.created_date,
    createdBy: row.created_by,
  };
}

function schedule(body: {
  planType: PlanType;
  interval?: number | undefined;
  installments?: number | undefined;
}): {
  interval: number;
  installments: number;
} {
  if (body.planType === 'Custom') {
    // The schema guarantees both for Custom.
    return { interval: body.interval ?? 0, installments: body.installments ?? 0 };
  }
  return PLAN_TYPE_SCHEDULE[body.planType];
}

function checkMerchant(client: SandboxClient, merchantId: string | undefined): Refusal | null {
  if (merchantId !== undefined && merchantId !== client.merchantId) {
    return refuse(403, 'merchantId', 'does not belong to the authenticated client');
  }
  return null;
}

export async function createPlan(
  ctx: SandboxContext,
  client: SandboxClient,
  body: CreatePlanBody,
): Promise<Result<string>> {
  const denied = checkMerchant(client, body.merchantId);
  if (denied) return denied;
  const now = ctx.clock.now().toISOString();
  const id = uuid();
  const { interval, installments } = schedule(body);
  await ctx.db
    .insertInto('recurrence_plans')
    .values({
      id,
      user_name: client.userName,
      merchant_id: client.merchantId,
      name: body.name,
      description: body.description,
      amount: body.amount as number,
      plan_type: body.planType,
      trial_days: body.trialDays ?? 0,
      payment_method: body.paymentMethod,
      interval_days: interval,
      installments,
      status: 'Active',
      attempts: body.attempts ?? 0,
      created_date: now,
      created_by: client.userName,
      modified_date: now,
    })
    .execute();
  return { ok: true, value: id };
}

export async function findPlanRow(
  ctx: SandboxContext,
  userName: string,
  id: string,
): Promise<PlanRow | undefined> {
  return ctx.db
    .selectFrom('recurrence_plans')
    .selectAll()
    .where('user_name', '=', userName)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function getPlan(
  ctx: SandboxContext,
  userName: string,
  id: string,
): Promise<Result<PlanView>> {
  const row = await findPlanRow(ctx, userName, id);
  if (!row) return refuse(404, 'planId', 'no plan with this id');
  return { ok: true, value: planView(row) };
}

const PLAN_ORDER_COLUMNS = {
  createdDate: 'created_date',
  name: 'name',
  amount: 'amount',
  status: 'status',
  planType: 'plan_type',
} as const;

export async function searchPlans(
  ctx: SandboxContext,
  userName: string,
  q: PlanSearchQuery,
): Promise<SearchEnvelope<PlanView>> {
  let base = ctx.db.selectFrom('recurrence_plans').where('user_name', '=', userName);
  if (q.name !== undefined && q.name !== '') base = base.where(containsInsensitive('name', q.name));
  if (q.status !== undefined) base = base.where('status', '=', q.status);
  const { total } = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const dir = q.orderBy.desc ? 'desc' : 'asc';
  const rows = await base
    .selectAll()
    .orderBy(PLAN_ORDER_COLUMNS[q.orderBy.field], dir)
    .orderBy('id', dir)
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)
    .execute();
  return { items: rows.map(planView), page: q.page, limit: q.limit, total: Number(total) };
}

/** Subscriptions that still use a plan: the Canceled ones no longer do. */
export async function countPlanUsers(ctx: SandboxContext, planId: string): Promise<number> {
  const { n } = await ctx.db
    .selectFrom('recurrence_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('plan_id', '=', planId)
    .where('status', '!=', 'Canceled')
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Spec plan rule 6: the amount cannot change while the plan is Active; other fields change only
 * while no subscription uses the plan; otherwise only name and description. A Canceled plan is
 * final: only its name and description can still be edited.
 */
export async function updatePlan(
  ctx: SandboxContext,
  client: SandboxClient,
  id: string,
  body: UpdatePlanBody,
): Promise<Result<string>> {
  const row = await findPlanRow(ctx, client.userName, id);
  if (!row) return refuse(404, 'planId', 'no plan with this id');
  const denied = checkMerchant(client, body.merchantId);
  if (denied) return denied;

  const { interval, installments } = schedule(body);
  const next = {
    amount: body.amount as number,
    plan_type: body.planType,
    trial_days: body.trialDays ?? row.trial_days,
    payment_method: body.paymentMethod,
    interval_days: interval,
    installments,
    attempts: body.attempts ?? row.attempts,
  };
  const fieldNames: Record<keyof typeof next, string> = {
    amount: 'amount',
    plan_type: 'planType',
    trial_days: 'trialDays',
    payment_method: 'paymentMethod',
    interval_days: 'interval',
    installments: 'installments',
    attempts: 'attempts',
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== row[k]);
  if (changed.length > 0) {
    const first = fieldNames[changed[0]!];
    if (row.status === 'Canceled') {
      return refuse(
        400,
        first,
        'cannot change: the plan is Canceled (only name and description can)',
      );
    }
    const users = await countPlanUsers(ctx, id);
    if (users > 0) {
      return refuse(
        400,
        first,
        `cannot change while ${users} subscription(s) use the plan; only name and description can`,
      );
    }
    if (changed.includes('amount') && row.status === 'Active') {
      return refuse(
        400,
        'amount',
        'cannot change while the plan is Active; set the plan Inactive first',
      );
    }
  }
  await ctx.db
    .updateTable('recurrence_plans')
    .set({
      ...next,
      name: body.name,
      description: body.description,
      modified_date: ctx.clock.now().toISOString(),
    })
    .where('id', '=', id)
    .execute();
  return { ok: true, value: id };
}

/**
 * Active ⇄ Inactive; either → Canceled, which is final. Inactive refuses new subscriptions and
 * keeps billing the existing ones; Canceled cancels every subscription of the plan and its
 * billings not yet finalized. Setting the current status again is accepted (idempotent).
 */
export async function setPlanStatus(
  ctx: SandboxContext,
  userName: string,
  id: string,
  status: PlanStatus,
): Promise<Result<string>> {
  const row = await findPlanRow(ctx, userName, id);
  if (!row) return refuse(404, 'planId', 'no plan with this id');
  if (row.status === status) return { ok: true, value: id };
  if (row.status === 'Canceled') {
    return refuse(400, 'status', 'the plan is Canceled, which is final; create a new plan');
  }
  const now = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('recurrence_plans')
      .set({ status, modified_date: now })
      .where('id', '=', id)
      .execute();
    if (status !== 'Canceled') return;
    const subs = trx
      .selectFrom('recurrence_subscriptions')
      .select('id')
      .where('plan_id', '=', id)
      .where('status', '!=', 'Canceled');
    await trx
      .updateTable('recurrence_billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_date: now })
      .where('status', '=', 'Opened')
      .where('subscription_id', 'in', subs)
      .execute();
    await trx
      .updateTable('recurrence_subscriptions')
      .set({ status: 'Canceled', next_billing_at: null, modified_date: now })
      .where('plan_id', '=', id)
      .where('status', '!=', 'Canceled')
      .execute();
  });
  return { ok: true, value: id };
}
