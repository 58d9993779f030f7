import { sqliteInsert, type Migration } from '../../lib/db';
import type { CardBrand, Split } from '../../gateway/schemas/payments';
import type { SandboxKysely } from '../db';
import type { SandboxContext } from '../context';
import type { PaymentRecord } from '../events';

export type PaymentStatus = 'approved' | 'declined' | 'canceled';

export interface PaymentsTables {
  /** Every authorization answered (approved or declined). No card number: masked only. */
  payments: {
    payment_id: string;
    nsu: string;
    authorization_code: string;
    user_name: string;
    account_number: string;
    merchant_id: string;
    transaction_type: 'credit' | 'debit';
    product_type: string;
    installments: number;
    amount: number;
    brand: CardBrand;
    masked_number: string;
    reference_transaction: string | null;
    /** JSON of the `configSplit` array, or null. */
    config_split: string | null;
    billing_id: string | null;
    status: PaymentStatus;
    return_code: string;
    description: string;
    created_at: string;
    canceled_at: string | null;
    url_call_back: string | null;
  };
}

export const paymentsMigrations: Migration[] = [
  {
    name: 'payments_0001_create',
    async up(db) {
      await db.schema
        .createTable('payments')
        .addColumn('payment_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('nsu', 'varchar(20)', (c) => c.notNull().unique())
        .addColumn('authorization_code', 'varchar(6)', (c) => c.notNull())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('account_number', 'varchar(18)', (c) => c.notNull())
        .addColumn('merchant_id', 'varchar(20)', (c) => c.notNull())
        .addColumn('transaction_type', 'varchar(10)', (c) => c.notNull())
        .addColumn('product_type', 'varchar(10)', (c) => c.notNull())
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('brand', 'varchar(12)', (c) => c.notNull())
        .addColumn('masked_number', 'varchar(15)', (c) => c.notNull())
        .addColumn('reference_transaction', 'varchar(50)')
        .addColumn('config_split', 'text')
        .addColumn('billing_id', 'varchar(36)')
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('return_code', 'varchar(4)', (c) => c.notNull())
        .addColumn('description', 'varchar(100)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('canceled_at', 'varchar(40)')
        .execute();
      await db.schema
        .createIndex('payments_user_created')
        .on('payments')
        .columns(['user_name', 'created_at'])
        .execute();
    },
  },
  {
    name: 'payments_0002_url_call_back',
    async up(db) {
      await db.schema.alterTable('payments').addColumn('url_call_back', 'varchar(500)').execute();
    },
  },
];

/** A stored payment: the shared record plus what only the payments domain tracks. */
export interface StoredPayment extends PaymentRecord {
  status: PaymentStatus;
  returnCode: string;
  description: string;
  canceledAt: string | null;
}

type Row = PaymentsTables['payments'];

export function toStoredPayment(r: Row): StoredPayment {
  return {
    paymentId: r.payment_id,
    nsu: r.nsu,
    authorizationCode: r.authorization_code,
    userName: r.user_name,
    accountNumber: r.account_number,
    merchantId: r.merchant_id,
    transactionType: r.transaction_type,
    productType: r.product_type,
    installments: r.installments,
    amount: r.amount,
    brand: r.brand,
    maskedNumber: r.masked_number,
    referenceTransaction: r.reference_transaction,
    configSplit: r.config_split ? (JSON.parse(r.config_split) as Split[]) : null,
    billingId: r.billing_id,
    authorizedAt: r.created_at,
    status: r.status,
    returnCode: r.return_code,
    description: r.description,
    canceledAt: r.canceled_at,
    urlCallBack: r.url_call_back,
  };
}

export function toRow(p: StoredPayment): Row {
  return {
    payment_id: p.paymentId,
    nsu: p.nsu,
    authorization_code: p.authorizationCode,
    user_name: p.userName,
    account_number: p.accountNumber,
    merchant_id: p.merchantId,
    transaction_type: p.transactionType,
    product_type: p.productType,
    installments: p.installments,
    amount: p.amount,
    brand: p.brand,
    masked_number: p.maskedNumber,
    reference_transaction: p.referenceTransaction,
    config_split: p.configSplit ? JSON.stringify(p.configSplit) : null,
    billing_id: p.billingId,
    status: p.status,
    return_code: p.returnCode,
    description: p.description,
    created_at: p.authorizedAt,
    canceled_at: p.canceledAt,
    url_call_back: p.urlCallBack,
  };
}

/** A payment by its id (TID), whatever its status; null when unknown. */
export async function findPayment(
  ctx: SandboxContext,
  paymentId: string,
): Promise<StoredPayment | null> {
  const row = await ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  return row ? toStoredPayment(row) : null;
}

const PAYMENT_COLUMNS = [
  'payment_id',
  'nsu',
  'authorization_code',
  'user_name',
  'account_number',
  'merchant_id',
  'transaction_type',
  'product_type',
  'installments',
  'amount',
  'brand',
  'masked_number',
  'reference_transaction',
  'config_split',
  'billing_id',
  'status',
  'return_code',
  'description',
  'created_at',
  'canceled_at',
  'url_call_back',
] as const satisfies readonly (keyof Row)[];

/** The insert, compiled once: it runs on every authorization (the benchmarked path). */
const insertPaymentRow = sqliteInsert<Row>('payments', PAYMENT_COLUMNS);

export async function insertPayment(db: SandboxKysely, p: StoredPayment): Promise<void> {
  await db.executeQuery(insertPaymentRow([toRow(p)]));
}
