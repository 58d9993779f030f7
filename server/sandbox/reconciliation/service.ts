import { inOneTransaction, isUniqueViolation, sqliteInsert } from '../../lib/db';
import type { DueTask } from '../clock/scheduler';
import type { SandboxContext } from '../context';
import type { PaymentRecord } from '../events';
import type { TransactionStatus, WebhookService } from '../webhooks/service';
import { spDate, spIso, spStartOfDay } from './calendar';
import { anticipationOf } from './anticipation';
import { DEFAULT_FEES, FeeTableSchema, type FeeTable } from './fees';
import { installmentsOf } from './ledger';
import type { ConcilRow } from './store';

const FEES_KEY = 'reconciliation_fees';

/** The fee table in force, per sandbox: read once, replaced by saveFees, dropped by a reset. */
interface FeeCache {
  fees: FeeTable | null;
  /** Bumped by every save and reset, so a read that raced one is not cached. */
  version: number;
}
const feeCaches = new WeakMap<SandboxContext, FeeCache>();

function feeCache(ctx: SandboxContext): FeeCache {
  let cache = feeCaches.get(ctx);
  if (!cache) {
    const fresh: FeeCache = { fees: null, version: 0 };
    ctx.onReset(() => {
      fresh.fees = null;
      fresh.version++;
    });
    feeCaches.set(ctx, fresh);
    cache = fresh;
  }
  return cache;
}

/** The fee table in force: the stored override, else the defaults. */
export async function loadFees(ctx: SandboxContext): Promise<FeeTable> {
  const cache = feeCache(ctx);
  if (cache.fees) return cache.fees;
  const version = cache.version;
  const fees = await readFees(ctx);
  if (cache.version === version) cache.fees = fees;
  return fees;
}

async function readFees(ctx: SandboxContext): Promise<FeeTable> {
  const row = await ctx.db
    .selectFrom('sandbox_state')
    .select('value')
    .where('key', '=', FEES_KEY)
    .executeTakeFirst();
  if (!row) return DEFAULT_FEES;
  const parsed = FeeTableSchema.safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data : DEFAULT_FEES;
}

export async function saveFees(ctx: SandboxContext, fees: FeeTable): Promise<void> {
  const value = JSON.stringify(fees);
  await ctx.db
    .insertInto('sandbox_state')
    .values({ key: FEES_KEY, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
  const cache = feeCache(ctx);
  cache.fees = fees;
  cache.version++;
}

/** The status a notification speaks of for one installment row. */
export function transactionStatusOf(
  row: Pick<ConcilRow, 'installment_status' | 'received_status'>,
): TransactionStatus {
  if (row.installment_status === 'C') return 'Canceled';
  if (row.installment_status === 'B') return 'Blocked';
  return row.received_status === 'P' ? 'Paid' : 'Authorized';
}

function notifyInput(
  row: Pick<ConcilRow, 'account_number' | 'payment_id' | 'nsu' | 'cod_auth' | 'installment_number'>,
  oldValue: TransactionStatus | '',
  newValue: TransactionStatus,
  moment: Date,
) {
  return {
    accountNumber: row.account_number,
    paymentId: row.payment_id,
    nsu: row.nsu,
    codAuth: row.cod_auth,
    installmentNumber: row.installment_number,
    oldValue,
    newValue,
    moment,
  };
}

type NewConcilRow = Omit<ConcilRow, 'id'>;

/** Every column but the generated id; compiled once, as it runs on every approval. */
const insertInstallments = sqliteInsert<NewConcilRow>('concil_installments', [
  'payment_id',
  'account_number',
  'nsu',
  'cod_auth',
  'terminal',
  'card_number',
  'card_type',
  'card_name',
  'transaction_date',
  'operation_date',
  'installment_number',
  'installments_count',
  'installment_u4',
  'total_u4',
  'installment_status',
  'mdr_tax',
  'mdr_u4',
  'trn_installment_u4',
  'trn_transaction_u4',
  'antifraud_installment_u4',
  'antifraud_transaction_u4',
  'received_u4',
  'received_date_forecast',
  'received_date_effective',
  'received_type',
  'received_status',
  'transaction_reference',
  'splits_json',
  'antecipation_u4',
  'antecipation_tax',
]);

/** Writes the installment rows of an approved payment and notifies Authorized per installment. */
export async function recordApproved(
  ctx: SandboxContext,
  webhooks: WebhookService,
  payment: PaymentRecord,
): Promise<void> {
  const fees = await loadFees(ctx);
  const anticipation = await anticipationOf(ctx, payment.accountNumber);
  const at = new Date(payment.authorizedAt);
  const operationDate = spDate(at);
  const rows = installmentsOf(payment, operationDate, fees, anticipation).map(
    (i): NewConcilRow => ({
      payment_id: payment.paymentId,
      account_number: payment.accountNumber,
      nsu: payment.nsu,
      cod_auth: payment.authorizationCode,
      terminal: `SBX${payment.merchantId.slice(-8)}`,
      card_number: payment.maskedNumber.slice(0, 15),
      card_type: payment.transactionType,
      card_name: payment.brand,
      transaction_date: spIso(at),
      operation_date: operationDate,
      installment_number: i.installmentNumber,
      installments_count: i.installmentsCount,
      installment_u4: i.installmentU4,
      total_u4: i.totalU4,
      installment_status: 'A',
      mdr_tax: i.mdrTaxPct,
      mdr_u4: i.mdrU4,
      trn_installment_u4: i.trnInstallmentU4,
      trn_transaction_u4: i.trnTransactionU4,
      antifraud_installment_u4: i.antifraudInstallmentU4,
      antifraud_transaction_u4: i.antifraudTransactionU4,
      received_u4: i.receivedU4,
      received_date_forecast: i.receivedDateForecast,
      received_date_effective: null,
      received_type: i.receivedType,
      received_status: 'A',
      transaction_reference: payment.referenceTransaction,
      splits_json: i.splits ? JSON.stringify(i.splits) : null,
      antecipation_u4: i.antecipationU4,
      antecipation_tax: i.antecipationTaxPct,
    }),
  );
  try {
    await ctx.db.executeQuery(insertInstallments(rows));
  } catch (err) {
    if (isUniqueViolation(err)) return; // the same approval delivered twice
    throw err;
  }
  await webhooks.notify(rows.map((r) => notifyInput(r, '', 'Authorized', at)));
}

/** Moves every installment of a payment to `to` (C canceled, B blocked, A approved again). */
export async function setInstallmentStatus(
  ctx: SandboxContext,
  webhooks: WebhookService,
  where: { paymentId?: string; nsu?: string; accountNumber?: string },
  to: 'A' | 'B' | 'C',
  at: Date,
): Promise<ConcilRow[] | null> {
  // The rows and their notifications commit together (joining the caller's transaction, e.g.
  // a cancellation decision): a failed notification leaves the rows as they were.
  return inOneTransaction(ctx.db, async () => {
    let q = ctx.db.selectFrom('concil_installments').selectAll();
    if (where.paymentId) q = q.where('payment_id', '=', where.paymentId);
    if (where.nsu) q = q.where('nsu', '=', where.nsu);
    if (where.accountNumber) q = q.where('account_number', '=', where.accountNumber);
    const rows = await q.orderBy('installment_number').execute();
    if (rows.length === 0) return null;
    const from = to === 'A' ? ['B'] : to === 'B' ? ['A'] : ['A', 'B'];
    const moving = rows.filter((r) => from.includes(r.installment_status));
    if (moving.length === 0) return rows;
    const after = moving.map((r) => ({ ...r, installment_status: to }));
    await ctx.db
      .updateTable('concil_installments')
      .set({ installment_status: to })
      .where(
        'id',
        'in',
        moving.map((r) => r.id),
      )
      .execute();
    await webhooks.notify(
      moving.map((r, i) =>
        notifyInput(r, transactionStatusOf(r), transactionStatusOf(after[i]!), at),
      ),
    );
    return rows.map((r) => after.find((a) => a.id === r.id) ?? r);
  });
}

/** Receipts fall due at the start of their São Paulo day: open A → paid P, notified Paid. */
export function receiptsTask(ctx: SandboxContext, webhooks: WebhookService): DueTask {
  return {
    name: 'reconciliation.receipts',
    async nextDueAt() {
      const row = await ctx.db
        .selectFrom('concil_installments')
        .select((eb) => eb.fn.min('received_date_forecast').as('due'))
        .where('received_status', '=', 'A')
        .where('installment_status', '=', 'A')
        .executeTakeFirst();
      return row?.due ? spStartOfDay(row.due) : null;
    },
    async runDue(now) {
      const today = spDate(now);
      // The day's receipts, their update and their Paid notifications commit together.
      await inOneTransaction(ctx.db, async () => {
        const due = await ctx.db
          .selectFrom('concil_installments')
          .where('received_status', '=', 'A')
          .where('installment_status', '=', 'A')
          .where('received_date_forecast', '<=', today)
          .select(['account_number', 'payment_id', 'nsu', 'cod_auth', 'installment_number'])
          .execute();
        if (due.length === 0) return;
        await ctx.db
          .updateTable('concil_installments')
          .set((eb) => ({
            received_status: 'P',
            received_date_effective: eb.ref('received_date_forecast'),
          }))
          .where('received_status', '=', 'A')
          .where('installment_status', '=', 'A')
          .where('received_date_forecast', '<=', today)
          .execute();
        await webhooks.notify(due.map((r) => notifyInput(r, 'Authorized', 'Paid', now)));
      });
    },
  };
}

/** Subscribes the ledger to payment events and registers the receipts task. */
export function registerReconciliation(ctx: SandboxContext, webhooks: WebhookService): void {
  ctx.events.on('payment.approved', (e) => recordApproved(ctx, webhooks, e.payment));
  ctx.events.on('payment.canceled', async (e) => {
    await setInstallmentStatus(
      ctx,
      webhooks,
      { paymentId: e.payment.paymentId },
      'C',
      new Date(e.at),
    );
  });
  ctx.scheduler.register(receiptsTask(ctx, webhooks));
}
