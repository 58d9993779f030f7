import type { Generated, Selectable } from 'kysely';
import type { Migration } from '../../lib/db';

export interface CallbackTables {
  /**
   * The durable outbox of `urlCallBack` notifications: one row per status change of a payment
   * that named a callback URL, with its delivery state. A restart resumes every `pending` row.
   */
  payment_callbacks: {
    id: Generated<number>;
    payment_id: string;
    url: string;
    /** The JSON body POSTed (no card data: ids, codes, amount, status, moment). */
    body: string;
    /** pending | delivered | failed */
    status: string;
    attempts: number;
    /** Epoch ms on the sandbox clock; null once settled. */
    next_attempt_ms: number | null;
    last_status_code: number | null;
    last_error: string | null;
    delivered_at: string | null;
    created_at: string;
  };
}

export const callbackMigrations: Migration[] = [
  {
    name: 'callbacks_0001_payment_callbacks',
    async up(db) {
      await db.schema
        .createTable('payment_callbacks')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('payment_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('url', 'varchar(500)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(12)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', 'bigint')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'varchar(300)')
        .addColumn('delivered_at', 'varchar(40)')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('payment_callbacks_due')
        .on('payment_callbacks')
        .columns(['status', 'next_attempt_ms'])
        .execute();
    },
  },
];

export type CallbackRow = Selectable<CallbackTables['payment_callbacks']>;
