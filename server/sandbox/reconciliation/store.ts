import type { Generated, Selectable } from 'kysely';
import type { Migration } from '../../lib/db';

/**
 * The reconciliation ledger: one row per installment of every approved payment. Money in
 * integer ten-thousandths of a real (`_u4`); dates YYYY-MM-DD São Paulo calendar days.
 */
export interface ReconciliationTables {
  concil_installments: {
    id: Generated<number>;
    payment_id: string;
    account_number: string;
    nsu: string;
    cod_auth: string;
    terminal: string;
    card_number: string;
    card_type: string;
    card_name: string;
    /** ISO instant with the São Paulo offset. */
    transaction_date: string;
    operation_date: string;
    installment_number: number;
    installments_count: number;
    installment_u4: number;
    total_u4: number;
    /** A approved, B blocked, C canceled. */
    installment_status: string;
    mdr_tax: number;
    mdr_u4: number;
    trn_installment_u4: number;
    trn_transaction_u4: number;
    antifraud_installment_u4: number;
    antifraud_transaction_u4: number;
    received_u4: number;
    received_date_forecast: string;
    received_date_effective: string | null;
    received_type: string;
    /** A open, P paid. */
    received_status: string;
    transaction_reference: string | null;
    splits_json: string | null;
    /** Anticipation discount (receivedType A), and its monthly rate in percent. */
    antecipation_u4: number;
    antecipation_tax: number;
  };
}

export type ConcilRow = Selectable<ReconciliationTables['concil_installments']>;

export const reconciliationMigrations: Migration[] = [
  {
    name: 'reconciliation_0001_installments',
    async up(db) {
      await db.schema
        .createTable('concil_installments')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('payment_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('account_number', 'varchar(18)', (c) => c.notNull())
        .addColumn('nsu', 'varchar(100)', (c) => c.notNull())
        .addColumn('cod_auth', 'varchar(30)', (c) => c.notNull())
        .addColumn('terminal', 'varchar(30)', (c) => c.notNull())
        .addColumn('card_number', 'varchar(15)', (c) => c.notNull())
        .addColumn('card_type', 'varchar(50)', (c) => c.notNull())
        .addColumn('card_name', 'varchar(50)', (c) => c.notNull())
        .addColumn('transaction_date', 'varchar(40)', (c) => c.notNull())
        .addColumn('operation_date', 'varchar(10)', (c) => c.notNull())
        .addColumn('installment_number', 'integer', (c) => c.notNull())
        .addColumn('installments_count', 'integer', (c) => c.notNull())
        .addColumn('installment_u4', 'bigint', (c) => c.notNull())
        .addColumn('total_u4', 'bigint', (c) => c.notNull())
        .addColumn('installment_status', 'varchar(1)', (c) => c.notNull())
        .addColumn('mdr_tax', 'real', (c) => c.notNull())
        .addColumn('mdr_u4', 'bigint', (c) => c.notNull())
        .addColumn('trn_installment_u4', 'bigint', (c) => c.notNull())
        .addColumn('trn_transaction_u4', 'bigint', (c) => c.notNull())
        .addColumn('antifraud_installment_u4', 'bigint', (c) => c.notNull())
        .addColumn('antifraud_transaction_u4', 'bigint', (c) => c.notNull())
        .addColumn('received_u4', 'bigint', (c) => c.notNull())
        .addColumn('received_date_forecast', 'varchar(10)', (c) => c.notNull())
        .addColumn('received_date_effective', 'varchar(10)')
        .addColumn('received_type', 'varchar(1)', (c) => c.notNull())
        .addColumn('received_status', 'varchar(1)', (c) => c.notNull())
        .addColumn('transaction_reference', 'varchar(100)')
        .addColumn('splits_json', 'text')
        .addUniqueConstraint('concil_installments_payment_installment', [
          'payment_id',
          'installment_number',
        ])
        .execute();
      await db.schema
        .createIndex('concil_installments_operation')
        .on('concil_installments')
        .columns(['account_number', 'operation_date'])
        .execute();
      await db.schema
        .createIndex('concil_installments_receipt')
        .on('concil_installments')
        .columns(['account_number', 'received_date_forecast'])
        .execute();
      await db.schema
        .createIndex('concil_installments_nsu')
        .on('concil_installments')
        .columns(['account_number', 'nsu'])
        .execute();
      await db.schema
        .createIndex('concil_installments_auth')
        .on('concil_installments')
        .columns(['account_number', 'cod_auth'])
        .execute();
      await db.schema
        .createIndex('concil_installments_open')
        .on('concil_installments')
        .columns(['received_status', 'received_date_forecast'])
        .execute();
    },
  },
  {
    name: 'reconciliation_0002_anticipation',
    async up(db) {
      await db.schema
        .alterTable('concil_installments')
        .addColumn('antecipation_u4', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('concil_installments')
        .addColumn('antecipation_tax', 'real', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
];
