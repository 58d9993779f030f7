import { isUniqueViolation } from '../../lib/db';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { sql } from 'kysely';
import { inboxDb } from '../webhooks/store';
import { transitionSession, markAttemptCanceled } from '../sessions/transition';
import { atomically } from '../atomic';

/** A sale of the gateway's reconciliation ledger (either search's row, reduced). */
export interface LedgerSale {
  nsu: string;
  codAuth: string | null;
  paymentId: string | null;
  /** `A` approved, `B` blocked, `C` canceled. */
  status: string;
}

/**
 * Links a ledger sale to the unknown attempt whose gateway reference the sale carries (the
 * proof: that reference was sent for this attempt only): the attempt and its session succeed,
 * notifications of the sale that could not be matched before are linked, and a canceled sale
 * marks the payment canceled, all in one transaction. The database refuses a sale already
 * linked to another attempt (unique index): then nothing changes. Resolves whether the attempt
 * was linked.
 */
export async function linkSaleToAttempt(
  ctx: BffContext,
  attempt: { id: string; session_id: string },
  sale: LedgerSale,
  why: string,
): Promise<boolean> {
  const at = ctx.clock.now();
  let linked: boolean;
  try {
    // One transaction: a crash part-way must not leave the attempt succeeded and its session
    // pending (the resolver looks up unknown attempts only, so nothing would finish the link).
    linked = await atomically(ctx, (tx) => link(tx, attempt, sale, at));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    ctx.logger.error(
      { event: 'payment.sale_already_linked', attemptId: attempt.id, nsu: sale.nsu },
      'a ledger sale already linked to another attempt was not linked again',
    );
    return false;
  }
  if (!linked) return false;
  ctx.logger.warn(
    {
      event: 'payment.resolved',
      attemptId: attempt.id,
      sessionId: attempt.session_id,
      paymentId: sale.paymentId,
      by: why,
    },
    'a payment whose outcome was unknown did happen: attempt and session marked succeeded',
  );
  return true;
}

/** The writes of `linkSaleToAttempt`, in its transaction. */
async function link(
  ctx: BffContext,
  attempt: { id: string; session_id: string },
  sale: LedgerSale,
  at: Date,
): Promise<boolean> {
  const res = await ctx.db
    .updateTable('payment_attempts')
    .set({
      status: 'succeeded',
      payment_id: sale.paymentId,
      nsu: sale.nsu,
      authorization_code: sale.codAuth,
      return_code: '00',
      failure_code: null,
      updated_at: at.toISOString(),
    })
    .where('id', '=', attempt.id)
    .where('status', '=', 'unknown')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  await transitionSession(
    ctx,
    attempt.session_id,
    ['pending', 'processing', 'failed'],
    'succeeded',
    at,
    { failure_code: null },
  );
  const early = await linkEarlyNotificationsQuery(ctx.db, attempt.id, sale, at).execute();
  const canceled = early.find((n) => n.new_value === 'Canceled');
  if (sale.status === 'C') await markAttemptCanceled(ctx, attempt.id, canceled?.moment ?? at);
  return true;
}

/**
 * Links the notifications of `sale` that came before its attempt was known (`unmatched`), from
 * `webhook_inbox_unmatched`: the unmatched rows are every sale of the account made elsewhere
 * (a shop's terminals, another site), kept for good, so a scan of them grows with the years.
 */
export function linkEarlyNotificationsQuery(
  db: BffKysely,
  attemptId: string,
  sale: Pick<LedgerSale, 'nsu' | 'codAuth'>,
  at: Date,
) {
  return (
    inboxDb(db)
      .updateTable('webhook_inbox')
      .set({ status: 'processed', attempt_id: attemptId, processed_at: at.toISOString() })
      // A literal: a bound parameter would keep PostgreSQL from matching the index's predicate.
      .where('status', '=', sql.lit('unmatched'))
      .where('nsu', '=', sale.nsu)
      .where('cod_auth', '=', sale.codAuth ?? '')
      .returning(['new_value', 'moment'])
  );
}
