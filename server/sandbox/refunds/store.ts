import { sql, type Generated } from 'kysely';
import type { Migration } from '../../lib/db';
import type { RefundStatus } from '../../gateway/schemas/refunds';

export interface RefundsTables {
  cancellation_requests: {
    /** Insertion order: the stable tiebreak of "newest first". */
    seq: Generated<number>;
    id: string;
    user_name: string;
    payment_id: string;
    nsu: string;
    authorization_code: string;
    /** Cents the request asks back (a partial request asks less than the payment). */
    amount: number;
    /** Cents of the whole transaction: the list's `amount` ("total transaction amount"). */
    transaction_amount: number;
    /** The payment's operation date, YYYY-MM-DD in São Paulo. */
    operation_date: string;
    installments: number;
    status: RefundStatus;
    description: string;
    created_at: string;
    updated_at: string;
  };
}

export const refundsMigrations: Migration[] = [
  {
    name: 'refunds_0001_cancellation_requests',
    async up(db) {
      await db.schema
        .createTable('cancellation_requests')
        .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('payment_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('nsu', 'varchar(20)', (c) => c.notNull())
        .addColumn('authorization_code', 'varchar(6)', (c) => c.notNull())
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('operation_date', 'varchar(10)', (c) => c.notNull())
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('description', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('cancellation_requests_user_created')
        .on('cancellation_requests')
        .columns(['user_name', 'created_at', 'seq'])
        .execute();
    },
  },
  {
    name: 'refunds_0002_transaction_amount',
    async up(db) {
      await db.schema
        .alterTable('cancellation_requests')
        .addColumn('transaction_amount', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`
        update cancellation_requests set transaction_amount = coalesce(
          (select p.amount from payments p where p.payment_id = cancellation_requests.payment_id),
          amount)
      `.execute(db);
    },
  },
];
