import type { Migration } from '../../lib/db';

export const PLAN_TYPES = [
  'Monthly',
  'Bimonthly',
  'Quarterly',
  'Semesterly',
  'Yearly',
  'Custom',
] as const;
export type PlanType = (typeof PLAN_TYPES)[number];

export const PLAN_STATUSES = ['Active', 'Inactive', 'Canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const SUBSCRIPTION_STATUSES = ['Active', 'Canceled', 'Blocked'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const BILLING_STATUSES = ['Opened', 'PaymentInvalid', 'Canceled', 'Denied', 'Paid'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

export interface RecurrenceTables {
  recurrence_plans: {
    id: string;
    /** The client (integrator) that owns it; every query is scoped by it. */
    user_name: string;
    merchant_id: string;
    name: string;
    description: string;
    /** Reais (the spec's decimal 12,6); billings charge it rounded to cents. */
    amount: number;
    plan_type: PlanType;
    trial_days: number;
    payment_method: 'CreditCard';
    interval_days: number;
    /** 0 = until canceled. */
    installments: number;
    status: PlanStatus;
    attempts: number;
    created_date: string;
    created_by: string;
    modified_date: string;
  };
  recurrence_subscriptions: {
    id: string;
    user_name: string;
    plan_id: string;
    vault_id: string;
    order_number: string;
    status: SubscriptionStatus;
    created_date: string;
    created_by: string;
    modified_date: string;
    /** Installment number the next billing gets (1-based). */
    next_installment: number;
    /** When the next billing falls due (ISO, UTC); null when no more billings will be made. */
    next_billing_at: string | null;
    /** When it was last blocked by a canceled card; null when not blocked. */
    blocked_at: string | null;
    /** 1 when a new vault was set after the last block (required to reactivate). */
    vault_renewed: number;
  };
  recurrence_billings: {
    id: string;
    user_name: string;
    subscription_id: string;
    installment: number;
    status: BillingStatus;
    amount: number;
    /** Due date of the installment (ISO, UTC). */
    expire_at: string;
    /** Charge attempts made so far. */
    attempts_made: number;
    /** When the next charge attempt falls due; null once finalized. */
    next_attempt_at: string | null;
    last_return_code: string | null;
    payment_id: string | null;
    created_date: string;
    modified_date: string;
  };
}

export const recurrenceMigrations: Migration[] = [
  {
    name: 'recurrence_0001_plans',
    async up(db) {
      await db.schema
        .createTable('recurrence_plans')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('merchant_id', 'varchar(20)', (c) => c.notNull())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('description', 'varchar(255)', (c) => c.notNull())
        .addColumn('amount', 'double precision', (c) => c.notNull())
        .addColumn('plan_type', 'varchar(12)', (c) => c.notNull())
        .addColumn('trial_days', 'integer', (c) => c.notNull())
        .addColumn('payment_method', 'varchar(12)', (c) => c.notNull())
        .addColumn('interval_days', 'integer', (c) => c.notNull())
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('created_date', 'varchar(40)', (c) => c.notNull())
        .addColumn('created_by', 'varchar(30)', (c) => c.notNull())
        .addColumn('modified_date', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('recurrence_plans_user_created')
        .on('recurrence_plans')
        .columns(['user_name', 'created_date', 'id'])
        .execute();
    },
  },
  {
    name: 'recurrence_0002_subscriptions',
    async up(db) {
      await db.schema
        .createTable('recurrence_subscriptions')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        // No foreign keys: `POST /__sandbox/reset` wipes tables in creation order.
        .addColumn('plan_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('vault_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('order_number', 'varchar(10)', (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('created_date', 'varchar(40)', (c) => c.notNull())
        .addColumn('created_by', 'varchar(30)', (c) => c.notNull())
        .addColumn('modified_date', 'varchar(40)', (c) => c.notNull())
        .addColumn('next_installment', 'integer', (c) => c.notNull())
        .addColumn('next_billing_at', 'varchar(40)')
        .addColumn('blocked_at', 'varchar(40)')
        .addColumn('vault_renewed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('recurrence_subscriptions_plan')
        .on('recurrence_subscriptions')
        .columns(['plan_id', 'status'])
        .execute();
      await db.schema
        .createIndex('recurrence_subscriptions_user_created')
        .on('recurrence_subscriptions')
        .columns(['user_name', 'created_date', 'id'])
        .execute();
      // The engine's "what is due next" is MIN(next_billing_at) over active subscriptions.
      await db.schema
        .createIndex('recurrence_subscriptions_due')
        .on('recurrence_subscriptions')
        .columns(['status', 'next_billing_at'])
        .execute();
    },
  },
  {
    name: 'recurrence_0003_billings',
    async up(db) {
      await db.schema
        .createTable('recurrence_billings')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('subscription_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('installment', 'integer', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('amount', 'double precision', (c) => c.notNull())
        .addColumn('expire_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('attempts_made', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'varchar(40)')
        .addColumn('last_return_code', 'varchar(4)')
        .addColumn('payment_id', 'varchar(36)')
        .addColumn('created_date', 'varchar(40)', (c) => c.notNull())
        .addColumn('modified_date', 'varchar(40)', (c) => c.notNull())
        // One billing per installment: re-running the engine can never bill twice.
        .addUniqueConstraint('recurrence_billings_installment', ['subscription_id', 'installment'])
        .execute();
      await db.schema
        .createIndex('recurrence_billings_due')
        .on('recurrence_billings')
        .column('next_attempt_at')
        .execute();
      await db.schema
        .createIndex('recurrence_billings_user_expire')
        .on('recurrence_billings')
        .columns(['user_name', 'expire_at', 'id'])
        .execute();
    },
  },
  {
    // The engine reads due work in (instant, id) order: with the id in the index, a batch of
    // equal instants comes straight off the index instead of being sorted.
    name: 'recurrence_0004_due_order',
    async up(db) {
      await db.schema.dropIndex('recurrence_subscriptions_due').execute();
      await db.schema
        .createIndex('recurrence_subscriptions_due')
        .on('recurrence_subscriptions')
        .columns(['status', 'next_billing_at', 'id'])
        .execute();
      await db.schema.dropIndex('recurrence_billings_due').execute();
      await db.schema
        .createIndex('recurrence_billings_due')
        .on('recurrence_billings')
        .columns(['next_attempt_at', 'id'])
        .execute();
    },
  },
];
