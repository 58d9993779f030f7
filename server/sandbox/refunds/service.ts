import { randomUUID } from 'node:crypto';
import { inOneTransaction } from '../../lib/db';
import type {
  CancellationRequest,
  RefundListResponse,
  RefundStatus,
} from '../../gateway/schemas/refunds';
import type { SandboxContext } from '../context';
import { findPayment, toStoredPayment } from '../payments/store';
import { spDate } from '../reconciliation/calendar';
import type { RefundsTables } from './store';

type Row = Omit<RefundsTables['cancellation_requests'], 'seq'>;

/** Allowed moves (DESIGN §5): PENDENTE → APROVADO → CANCELADO, PENDENTE → REJEITADO. */
export const TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  PENDENTE: ['APROVADO', 'REJEITADO'],
  APROVADO: ['CANCELADO'],
  CANCELADO: [],
  REJEITADO: [],
};

export function canMove(from: RefundStatus, to: RefundStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * A list item. `amount` is the spec's "total transaction amount" (reais); what a partial
 * request asks back is the extra `requestedAmount` (reais).
 */
function toItem(r: Row): CancellationRequest & { requestedAmount: number } {
  return {
    id: r.id,
    nsu: r.nsu,
    authorizationCode: r.authorization_code,
    amount: r.transaction_amount / 100,
    requestedAmount: r.amount / 100,
    operationDate: r.operation_date,
    installments: r.installments,
    status: r.status,
    description: r.description,
  };
}

export type Failure = { ok: false; status: 404 | 409 | 400; tag: string; description: string };

type Opened = { ok: true; request: CancellationRequest & { paymentId: string } } | Failure;

/**
 * Opens a cancellation request (`PENDENTE`) for an approved payment. `amount` in cents. The
 * checks and the insert are one transaction: two requests opened at once for one payment
 * cannot both pass "none open, at most what is left" and ask back more than it was.
 */
export function openCancellationRequest(
  ctx: SandboxContext,
  input: { paymentId: string; amount?: number | undefined; description: string },
): Promise<Opened> {
  return inOneTransaction(ctx.db, () => openChecked(ctx, input));
}

async function openChecked(
  ctx: SandboxContext,
  input: { paymentId: string; amount?: number | undefined; description: string },
): Promise<Opened> {
  const payment = await findPayment(ctx, input.paymentId);
  if (!payment) {
    return { ok: false, status: 404, tag: 'paymentId', description: 'paymentId: unknown payment' };
  }
  if (payment.status !== 'approved') {
    return {
      ok: false,
      status: 409,
      tag: 'paymentId',
      description: `paymentId: the payment is ${payment.status}; only approved payments can be canceled`,
    };
  }
  const left = payment.amount - (await canceledSoFar(ctx, payment.paymentId));
  const amount = input.amount ?? left;
  if (amount > left) {
    return {
      ok: false,
      status: 400,
      tag: 'amount',
      description:
        left === payment.amount
          ? 'amount: more than the payment amount'
          : `amount: more than the ${left} cents not canceled yet`,
    };
  }
  const open = await ctx.db
    .selectFrom('cancellation_requests')
    .select('id')
    .where('payment_id', '=', payment.paymentId)
    .where('status', 'in', ['PENDENTE', 'APROVADO'])
    .executeTakeFirst();
  if (open) {
    return {
      ok: false,
      status: 409,
      tag: 'paymentId',
      description: `paymentId: cancellation request ${open.id} is already open`,
    };
  }
  const now = ctx.clock.now().toISOString();
  const row = {
    id: randomUUID(),
    user_name: payment.userName,
    payment_id: payment.paymentId,
    nsu: payment.nsu,
    authorization_code: payment.authorizationCode,
    amount,
    transaction_amount: payment.amount,
    // The day the reconciliation dates the sale: São Paulo's, daylight saving time included.
    operation_date: spDate(new Date(payment.authorizedAt)),
    installments: payment.installments,
    status: 'PENDENTE' as const,
    description: input.description,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('cancellation_requests').values(row).execute();
  return { ok: true, request: { ...toItem(row), paymentId: payment.paymentId } };
}

/** Cents of a payment that decided (CANCELADO) requests gave back. */
async function canceledSoFar(ctx: SandboxContext, paymentId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('cancellation_requests')
    .select((eb) => eb.fn.sum<number>('amount').as('cents'))
    .where('payment_id', '=', paymentId)
    .where('status', '=', 'CANCELADO')
    .executeTakeFirst();
  return Number(row?.cents ?? 0);
}

/**
 * Moves a request. Reaching CANCELADO gives its amount back; once the requests decided give
 * back the whole payment, the sale is canceled (every installment C, `Canceled` notified) and
 * `payment.canceled` emitted. A partial one leaves the sale approved: the spec's `Canceled` is
 * the irreversible cancellation of a transaction, and the rest stays to be received (or to be
 * canceled by another request).
 */
export async function decideCancellationRequest(
  ctx: SandboxContext,
  id: string,
  to: RefundStatus,
): Promise<{ ok: true; request: CancellationRequest & { paymentId: string } } | Failure> {
  // Ids are stored in lower case; a GUID is the same in either case.
  const row = await ctx.db
    .selectFrom('cancellation_requests')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row)
    return { ok: false, status: 404, tag: 'id', description: 'id: unknown cancellation request' };
  if (!canMove(row.status, to)) {
    return {
      ok: false,
      status: 409,
      tag: 'status',
      description: `status: cannot move from ${row.status} to ${to}`,
    };
  }
  const now = ctx.clock.now().toISOString();
  // The decision, the payment's status and what the handlers write for it (ledger rows, webhook
  // notifications, urlCallBack) commit together; a handler that fails rolls all of it back.
  const moved = await inOneTransaction(ctx.db, async (): Promise<true | Failure> => {
    if (to === 'CANCELADO') {
      // What is given back never passes the payment, whatever was opened before.
      const left = row.transaction_amount - (await canceledSoFar(ctx, row.payment_id));
      if (row.amount > left) {
        return {
          ok: false,
          status: 409,
          tag: 'amount',
          description: `amount: the request's ${row.amount} cents are more than the ${left} cents not canceled yet`,
        };
      }
    }
    const res = await ctx.db
      .updateTable('cancellation_requests')
      .set({ status: to, updated_at: now })
      .where('id', '=', row.id)
      .where('status', '=', row.status)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      return { ok: false, status: 409, tag: 'status', description: 'status: changed concurrently' };
    }
    const whole =
      to === 'CANCELADO' && (await canceledSoFar(ctx, row.payment_id)) >= row.transaction_amount;
    if (whole) {
      await ctx.db
        .updateTable('payments')
        .set({ status: 'canceled', canceled_at: now })
        .where('payment_id', '=', row.payment_id)
        .execute();
    }
    if (whole || to === 'APROVADO') {
      const prow = await ctx.db
        .selectFrom('payments')
        .selectAll()
        .where('payment_id', '=', row.payment_id)
        .executeTakeFirst();
      if (prow) {
        await ctx.events.emitAll({
          type: to === 'CANCELADO' ? 'payment.canceled' : 'payment.refund-approved',
          payment: toStoredPayment(prow),
          cancellationRequestId: row.id,
          at: now,
        });
      }
    }
    return true;
  });
  if (moved !== true) return moved;
  return { ok: true, request: { ...toItem({ ...row, status: to }), paymentId: row.payment_id } };
}

/**
 * `GET /v1/refund/list` for one client: `id` alone when given (the other filters ignored),
 * else by status; newest first (insertion order breaks ties); skip/take paging.
 */
export async function listCancellationRequests(
  ctx: SandboxContext,
  userName: string,
  q: { status?: RefundStatus | undefined; id?: string | undefined; skip: number; take: number },
): Promise<RefundListResponse> {
  let base = ctx.db.selectFrom('cancellation_requests').where('user_name', '=', userName);
  // Ids are stored in lower case; the GUID schema accepts either case.
  if (q.id !== undefined) base = base.where('id', '=', q.id.toLowerCase());
  else if (q.status !== undefined) base = base.where('status', '=', q.status);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(q.take)
    .offset(q.skip)
    .execute();
  return { items: rows.map(toItem), totalCount: Number(count?.n ?? 0), skip: q.skip, take: q.take };
}
