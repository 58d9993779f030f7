import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import { markAttemptCanceled, transitionSession } from '../sessions/store';
import { inboxDb } from '../webhooks/store';

/** Options of the unknown-attempt resolver (DESIGN §4: a timeout after sending). */
export interface ResolveOptions {
  /** The merchant's gateway account (the reconciliation searches need it). */
  accountNumber: string;
  /** An attempt is looked up only once it has been unknown this long. Default 1 minute. */
  settleAfterMs?: number;
  /** How far back unknown attempts are still looked up. Default 7 days. */
  lookbackMs?: number;
}

export interface ResolveReport {
  /** Found in the gateway's ledger: the payment happened; attempt and session succeeded. */
  resolved: string[];
  /** Not (yet) in the ledger: left unknown, looked up again next round. */
  stillUnknown: string[];
}

/** The day (UTC) of an instant plus `days`, as the reconciliation searches take it. */
function utcDay(at: Date, days: number): string {
  return new Date(at.getTime() + days * MS.day).toISOString().slice(0, 10);
}

/**
 * Settles attempts left `unknown` by a gateway call that timed out after sending (the payment
 * may or may not have happened; DESIGN §4 forbids retrying it). The gateway's reconciliation
 * ledger answers: a sale whose `transactionReference` is the session's reference and whose
 * amount is the session's happened, so the attempt takes its paymentId, NSU and authorization
 * code and succeeds, and so does the session (the shopper saw "try again later"; the merchant
 * sees the truth). A notification that arrived before, unmatched, is linked to it. Declined or
 * never-received payments have no ledger row: such attempts stay unknown, which is the truth.
 */
export async function resolveUnknownAttempts(
  ctx: BffContext,
  opts: ResolveOptions,
): Promise<ResolveReport> {
  const now = ctx.clock.now();
  const settled = new Date(now.getTime() - (opts.settleAfterMs ?? MS.minute)).toISOString();
  const since = new Date(now.getTime() - (opts.lookbackMs ?? 7 * MS.day)).toISOString();
  const unknown = await ctx.db
    .selectFrom('payment_attempts as a')
    .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
    .select([
      'a.id',
      'a.session_id',
      'a.amount',
      'a.created_at',
      's.reference_transaction',
      's.status as session_status',
    ])
    .where('a.status', '=', 'unknown')
    // A timed-out attempt has its failure code; one still waiting for the gateway has none.
    .where('a.failure_code', 'is not', null)
    .where('a.updated_at', '<=', settled)
    .where('a.created_at', '>=', since)
    .orderBy('a.created_at')
    .limit(200)
    .execute();
  const report: ResolveReport = { resolved: [], stillUnknown: [] };
  if (unknown.length === 0) return report;

  // One search covers every attempt: from the day before the oldest to the day after today
  // (the gateway's operation date is a São Paulo day; a day each side covers any offset).
  const rows = await ctx.gateway.searchConcilByOperationDate({
    accountNumber: opts.accountNumber,
    startDate: utcDay(new Date(unknown[0]!.created_at), -1),
    endDate: utcDay(now, 1),
  });
  for (const a of unknown) {
    const reference = a.reference_transaction ?? a.session_id;
    const sale = rows.find(
      (r) =>
        r.transactionReference === reference && Math.round(Number(r.amount) * 100) === a.amount,
    );
    if (!sale) {
      report.stillUnknown.push(a.id);
      continue;
    }
    const at = ctx.clock.now();
    const res = await ctx.db
      .updateTable('payment_attempts')
      .set({
        status: 'succeeded',
        payment_id: sale.transactionPaymentIdWeb ?? null,
        nsu: sale.nsu,
        authorization_code: sale.codAuth ?? null,
        return_code: '00',
        failure_code: null,
        updated_at: at.toISOString(),
      })
      .where('id', '=', a.id)
      .where('status', '=', 'unknown')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) continue;
    await transitionSession(ctx.db, a.session_id, ['failed', 'processing'], 'succeeded', at, {
      failure_code: null,
    });
    // Notifications of this sale that came before it was known, now matched.
    const early = await inboxDb(ctx.db)
      .updateTable('webhook_inbox')
      .set({ status: 'processed', attempt_id: a.id, processed_at: at.toISOString() })
      .where('status', '=', 'unmatched')
      .where('nsu', '=', sale.nsu)
      .where('cod_auth', '=', sale.codAuth ?? '')
      .returning(['new_value', 'moment'])
      .execute();
    const canceled = early.find((n) => n.new_value === 'Canceled');
    if (canceled || sale.transactionStatus === 'C') {
      await markAttemptCanceled(ctx.db, a.id, canceled?.moment ?? at);
    }
    ctx.logger.warn(
      {
        event: 'payment.resolved',
        attemptId: a.id,
        sessionId: a.session_id,
        paymentId: sale.transactionPaymentIdWeb ?? null,
        previousSessionStatus: a.session_status,
      },
      'a payment that timed out did happen: attempt and session marked succeeded',
    );
    report.resolved.push(a.id);
  }
  return report;
}

/**
 * Runs `resolveUnknownAttempts` now and every `intervalMs`; failures (gateway down) are logged
 * and tried again next round. Returns a stop function.
 */
export function startUnknownAttemptResolver(
  ctx: BffContext,
  opts: ResolveOptions & { intervalMs: number },
): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const round = () => {
    if (running) return;
    running = resolveUnknownAttempts(ctx, opts)
      .catch((err: unknown) => {
        ctx.logger.warn(
          { event: 'payment.resolve_failed', err: { message: (err as Error).message } },
          'could not look unknown payments up in the reconciliation ledger',
        );
      })
      .finally(() => {
        running = null;
      });
  };
  round();
  const timer = setInterval(round, opts.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
