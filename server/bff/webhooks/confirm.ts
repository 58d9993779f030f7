import type { ConcilInstallmentRow } from '../../gateway/schemas';
import type { ExpressionBuilder } from 'kysely';
import type { BffContext } from '../context';
import type { BffDb } from '../db';
import { linkSaleToAttempt } from '../payments/ledger-link';
import { classifyGatewayError } from '../payments/outcomes';
import { inboxDb, type InboxTables } from './store';
import { markAttemptCanceled } from '../sessions/transition';
import {
  isFirstBillingSale,
  recordBillingCanceled,
  type SubscriptionAttempt,
} from './subscription-sale';

type InboxRow = InboxTables['webhook_inbox'];

/**
 * Confirmations that read the ledger and did not find the notification before it is left
 * `unverified`. A try that could not read the gateway, or whose subscription is still being
 * created, does not count: the notification is tried again (at most an hour apart) until the
 * ledger answers.
 */
export const MAX_CONFIRM_TRIES = 8;
/** Pause before the second try, doubled for each next one (at most an hour). */
export const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 60 * 60_000;

/** An attempt's authorization code is `codAuth`; a sale with none may have it null or empty. */
function codeIs(codAuth: string) {
  return (eb: ExpressionBuilder<BffDb, 'payment_attempts'>) =>
    codAuth === ''
      ? eb.or([eb('authorization_code', '=', ''), eb('authorization_code', 'is', null)])
      : eb('authorization_code', '=', codAuth);
}

/** Whether the ledger's sale agrees with what the notification says happened. */
function agrees(newValue: string, sale: ConcilInstallmentRow[]): boolean {
  if (sale.length === 0) return false;
  // Canceled is irreversible: every installment must say so. Blocked: at least one is.
  if (newValue === 'Canceled') return sale.every((r) => r.installmentStatus === 'C');
  if (newValue === 'Blocked') return sale.some((r) => r.installmentStatus !== 'A');
  // Authorized, Paid: the sale exists (Paid moves no money state of ours).
  return true;
}

type Outcome =
  | { kind: 'applied'; attemptId: string; sessionId: string }
  | { kind: 'unmatched' }
  | { kind: 'unconfirmed'; reason: string; missed: boolean };

/**
 * Confirms one notification against the gateway's ledger (search by NSU and authorization
 * code) and applies it only then: nothing moves on the notification's word alone. The
 * attempt is the one that holds the sale (NSU + code); else the one whose gateway reference
 * the sale carries (the proof that links a payment whose answer was lost, or a
 * subscription's first billing).
 */
async function confirmAndApply(ctx: BffContext, row: InboxRow): Promise<Outcome> {
  let sale: ConcilInstallmentRow[];
  try {
    // A sale with no authorization code is searched by its NSU alone: the gateway refuses an
    // empty codAuth (400), which no later try would change.
    sale = await ctx.gateway.searchConcilByCode(
      {
        accountNumber: ctx.config.accountNumber,
        nsu: row.nsu,
        ...(row.cod_auth === '' ? {} : { codAuth: row.cod_auth }),
      },
      { timeoutMs: 10_000 },
    );
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    return { kind: 'unconfirmed', reason: 'the gateway could not be read', missed: false };
  }
  sale = sale.filter((r) => r.nsu === row.nsu && (r.codAuth ?? '') === row.cod_auth);
  if (!agrees(row.new_value, sale)) {
    return { kind: 'unconfirmed', reason: 'the ledger does not show it', missed: true };
  }
  let attempt: ByReference = await ctx.db
    .selectFrom('payment_attempts')
    .select(['id', 'session_id'])
    .where('nsu', '=', row.nsu)
    .where(codeIs(row.cod_auth))
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  if (!attempt) {
    const byReference = await attemptByReference(ctx, row, sale);
    if (byReference === 'later' || byReference === 'unreadable') {
      return {
        kind: 'unconfirmed',
        reason:
          byReference === 'later'
            ? 'its subscription is still being created'
            : 'the gateway could not be read',
        missed: false,
      };
    }
    attempt = byReference;
  }
  if (!attempt) return { kind: 'unmatched' };
  if (row.new_value === 'Canceled') {
    // A later billing's charge is the subscription's, not the checkout's payment.
    if (attempt.laterBilling) await recordBillingCanceled(ctx, attempt.laterBilling, row, sale);
    else await markAttemptCanceled(ctx, attempt.id, row.moment);
  }
  return { kind: 'applied', attemptId: attempt.id, sessionId: attempt.session_id };
}

/**
 * The attempt a notice is applied to; for the sale of one of its subscription's later
 * billings, that subscription (`laterBilling`): linked to the checkout, not its payment.
 */
type ByReference =
  { id: string; session_id: string; laterBilling?: SubscriptionAttempt } | undefined;

/**
 * The attempt whose gateway reference the sale carries, linked to the sale on the way: an
 * unknown payment attempt succeeds (the reference is the proof), a subscription attempt gets
 * its first billing's NSU and code; the sale of a later billing of that subscription is the
 * subscription's (every billing carries its order number). `later` while a subscription is
 * still being created, `unreadable` when the gateway cannot tell whose billing it is now.
 */
async function attemptByReference(
  ctx: BffContext,
  row: InboxRow,
  sale: ConcilInstallmentRow[],
): Promise<ByReference | 'later' | 'unreadable'> {
  const reference = sale[0]!.transactionReference;
  if (!reference) return undefined;
  const a = await ctx.db
    .selectFrom('payment_attempts as a')
    .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
    .select([
      'a.id',
      'a.session_id',
      'a.status',
      'a.subscription_id',
      'a.nsu',
      'a.authorization_code',
      's.plan_id',
    ])
    .where('a.gateway_reference', '=', reference)
    .executeTakeFirst();
  if (!a) return undefined;
  // Linked meanwhile (the pay call that made it has just answered).
  if (a.nsu === row.nsu && (a.authorization_code ?? '') === row.cod_auth) return a;
  const paymentId = sale[0]!.transactionPaymentIdWeb ?? null;
  if (a.plan_id && a.status === 'unknown') return 'later';
  if (a.status === 'unknown') {
    const status = sale.every((r) => r.installmentStatus === 'C') ? 'C' : 'A';
    const linked = await linkSaleToAttempt(
      ctx,
      a,
      { nsu: row.nsu, codAuth: row.cod_auth, paymentId, status },
      'webhook',
    );
    if (linked) return a;
    // Another path linked it first (the resolver, this sale's other notice on another instance,
    // the pay call's answer): the notice is still the attempt's when the attempt holds its sale.
    return (await holdsSale(ctx, a.id, row)) ? a : undefined;
  }
  if (a.status !== 'succeeded' || !a.subscription_id) return undefined;
  const subscription = { ...a, subscription_id: a.subscription_id };
  if (a.nsu === null) {
    const first = await isFirstBillingSale(ctx, a.subscription_id, sale);
    if (first === 'unreadable') return first;
    // The first billing of the subscription the attempt created: its evidence. Another
    // notice of the same sale may have written it meanwhile.
    if (first) {
      const written = await ctx.db
        .updateTable('payment_attempts')
        .set({ nsu: row.nsu, authorization_code: row.cod_auth, payment_id: paymentId })
        .where('id', '=', a.id)
        .where('nsu', 'is', null)
        .executeTakeFirst();
      if (Number(written.numUpdatedRows) === 1 || (await holdsSale(ctx, a.id, row))) return a;
    }
  }
  return { ...a, laterBilling: subscription };
}

/** Whether attempt `id` holds the notification's sale (its NSU and authorization code), now. */
async function holdsSale(ctx: BffContext, id: string, row: InboxRow): Promise<boolean> {
  const a = await ctx.db
    .selectFrom('payment_attempts')
    .select('id')
    .where('id', '=', id)
    .where('nsu', '=', row.nsu)
    .where(codeIs(row.cod_auth))
    .executeTakeFirst();
  return a !== undefined;
}

/** Processes one `received` notification: applied, unmatched, or tried again later. */
export async function processNotification(ctx: BffContext, row: InboxRow): Promise<void> {
  const outcome = await confirmAndApply(ctx, row);
  const now = ctx.clock.now();
  const key = (q: ReturnType<typeof update>) =>
    q
      .where('movement_id', '=', row.movement_id)
      .where('body_hash', '=', row.body_hash)
      .where('status', '=', 'received');
  const update = () => inboxDb(ctx.db).updateTable('webhook_inbox');
  const log = { movementId: Number(row.movement_id), newValue: row.new_value };
  if (outcome.kind === 'unconfirmed') {
    const tries = Number(row.tries) + 1;
    const misses = Number(row.misses) + (outcome.missed ? 1 : 0);
    const gaveUp = misses >= MAX_CONFIRM_TRIES;
    const wait = Math.min(FIRST_RETRY_MS * 2 ** Math.min(tries - 1, 20), MAX_RETRY_MS);
    await key(
      update().set({
        tries,
        misses,
        ...(gaveUp
          ? { status: 'unverified', processed_at: now.toISOString(), next_try_at: null }
          : { next_try_at: new Date(now.getTime() + wait).toISOString() }),
      }),
    ).execute();
    ctx.logger.warn(
      { event: gaveUp ? 'webhook.unverified' : 'webhook.unconfirmed', ...log, tries, misses },
      `webhook not confirmed by the gateway (${outcome.reason}): ${gaveUp ? 'left unverified, nothing applied' : 'tried again later'}`,
    );
    return;
  }
  const applied = outcome.kind === 'applied';
  await key(
    update().set({
      status: applied ? 'processed' : 'unmatched',
      processed_at: now.toISOString(),
      attempt_id: applied ? outcome.attemptId : null,
      tries: Number(row.tries) + 1,
      next_try_at: null,
    }),
  ).execute();
  ctx.logger.info(
    {
      event: 'webhook.processed',
      ...log,
      attemptId: applied ? outcome.attemptId : null,
      sessionId: applied ? outcome.sessionId : null,
    },
    applied ? 'webhook confirmed and applied' : 'webhook for a payment this BFF did not make',
  );
}
