import type { Generated, Selectable } from 'kysely';
import type { Migration } from '../../lib/db';

export interface WebhookTables {
  /** One URL per account; `basic_auth_enc` is AES-256-GCM ciphertext, never the plain value. */
  webhook_subscriptions: {
    account_number: string;
    url: string;
    basic_auth_enc: string;
    created_at: string;
    updated_at: string;
  };
  /**
   * The durable outbox: one row per notification (`movement_id` is the notification's
   * movementId), with its delivery state. A restart resumes every `pending` row.
   */
  webhook_notifications: {
    movement_id: Generated<number>;
    account_number: string;
    payment_id: string | null;
    nsu: string;
    cod_auth: string;
    installment_number: number;
    moment: string;
    type: string;
    old_value: string;
    new_value: string;
    /** pending | delivered | failed | canceled */
    status: string;
    attempts: number;
    /** Epoch ms on the sandbox clock; null once settled. */
    next_attempt_ms: number | null;
    last_status_code: number | null;
    last_error: string | null;
    delivered_at: string | null;
    created_at: string;
  };
  /** Every delivery attempt: when, where, what came back. */
  webhook_attempts: {
    id: Generated<number>;
    movement_id: number;
    attempt: number;
    at: string;
    url: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  };
}

export const webhookMigrations: Migration[] = [
  {
    name: 'webhooks_0001_create',
    async up(db) {
      await db.schema
        .createTable('webhook_subscriptions')
        .addColumn('account_number', 'varchar(18)', (c) => c.primaryKey())
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('basic_auth_enc', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('webhook_notifications')
        .addColumn('movement_id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('account_number', 'varchar(18)', (c) => c.notNull())
        .addColumn('payment_id', 'varchar(64)')
        .addColumn('nsu', 'varchar(100)', (c) => c.notNull())
        .addColumn('cod_auth', 'varchar(30)', (c) => c.notNull())
        .addColumn('installment_number', 'integer', (c) => c.notNull())
        .addColumn('moment', 'varchar(40)', (c) => c.notNull())
        .addColumn('type', 'varchar(40)', (c) => c.notNull())
        .addColumn('old_value', 'varchar(40)', (c) => c.notNull())
        .addColumn('new_value', 'varchar(40)', (c) => c.notNull())
        .addColumn('status', 'varchar(12)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', 'bigint')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'varchar(300)')
        .addColumn('delivered_at', 'varchar(40)')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_notifications_due')
        .on('webhook_notifications')
        .columns(['status', 'next_attempt_ms'])
        .execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('movement_id', 'integer', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'varchar(40)', (c) => c.notNull())
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'varchar(300)')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_attempts_movement')
        .on('webhook_attempts')
        .column('movement_id')
        .execute();
    },
  },
];

export type NotificationRow = Selectable<WebhookTables['webhook_notifications']>;
