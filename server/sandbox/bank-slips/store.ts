import type { Migration } from '../../lib/db';

/** One issued bank slip (boleto). Money in cents; dates YYYY-MM-DD São Paulo calendar days. */
export interface BankSlipRow {
  id: string;
  account_number: string;
  our_number: string;
  value_cents: number;
  issue_date: string;
  due_date: string;
  payer_document: string;
  payer_name: string;
  payer_street: string;
  payer_zip: string;
  payer_city: string;
  payer_state: string;
  payer_neighborhood: string;
  payer_phone: string | null;
  reference_code: string | null;
  bar_code: string | null;
  digitable_line: string | null;
  pix_emv: string | null;
  /** 1 processing, 2 issued, 3 paid, 9 overdue, 99 failed. */
  status_bill: number;
  /** 1 processing, 2 issued, 9 rejected, 99 failed. */
  status_integration: number;
  /** ISO instant the payment was recorded. */
  paid_at: string | null;
  effective_payment_date: string | null;
  effective_credit_date: string | null;
  paid_cents: number | null;
  created_at: string;
}

export interface BankSlipTables {
  bank_slips: BankSlipRow;
}

export const bankSlipMigrations: Migration[] = [
  {
    name: 'bank_slips_0001_create',
    async up(db) {
      await db.schema
        .createTable('bank_slips')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('account_number', 'varchar(18)', (c) => c.notNull())
        .addColumn('our_number', 'varchar(20)', (c) => c.notNull())
        .addColumn('value_cents', 'bigint', (c) => c.notNull())
        .addColumn('issue_date', 'varchar(10)', (c) => c.notNull())
        .addColumn('due_date', 'varchar(10)', (c) => c.notNull())
        .addColumn('payer_document', 'varchar(14)', (c) => c.notNull())
        .addColumn('payer_name', 'varchar(50)', (c) => c.notNull())
        .addColumn('payer_street', 'varchar(100)', (c) => c.notNull())
        .addColumn('payer_zip', 'varchar(8)', (c) => c.notNull())
        .addColumn('payer_city', 'varchar(100)', (c) => c.notNull())
        .addColumn('payer_state', 'varchar(2)', (c) => c.notNull())
        .addColumn('payer_neighborhood', 'varchar(50)', (c) => c.notNull())
        .addColumn('payer_phone', 'varchar(20)')
        .addColumn('reference_code', 'varchar(50)')
        .addColumn('bar_code', 'varchar(44)')
        .addColumn('digitable_line', 'varchar(47)')
        .addColumn('pix_emv', 'text')
        .addColumn('status_bill', 'integer', (c) => c.notNull())
        .addColumn('status_integration', 'integer', (c) => c.notNull())
        .addColumn('paid_at', 'varchar(40)')
        .addColumn('effective_payment_date', 'varchar(10)')
        .addColumn('effective_credit_date', 'varchar(10)')
        .addColumn('paid_cents', 'bigint')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('bank_slips_due')
        .on('bank_slips')
        .columns(['account_number', 'due_date'])
        .execute();
      await db.schema
        .createIndex('bank_slips_paid')
        .on('bank_slips')
        .columns(['account_number', 'effective_payment_date'])
        .execute();
      await db.schema
        .createIndex('bank_slips_credit')
        .on('bank_slips')
        .columns(['account_number', 'effective_credit_date'])
        .execute();
      await db.schema
        .createIndex('bank_slips_overdue')
        .on('bank_slips')
        .columns(['status_bill', 'due_date'])
        .execute();
    },
  },
];
