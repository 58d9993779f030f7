import { MS } from '../../lib/clock';
import type { Billing, Subscription } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import type { PayResult } from '../checkout-api';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { endAttemptAsFailure } from '../sessions/service';
import { findSession, unknownAttemptsQuery, updateAttemptInFlight } from '../sessions/store';
import { firstBillingByDueDay, subscriptionIdOf, type DueDaySearch } from './first-billing-search';
import { linkSaleToAttempt } from './ledger-link';
import { ledgerSalesByAttempt } from './ledger-windows';
import { planListing, type PlanListing } from './plan-proof';
import { markLookedUp, subscriptionCandidates } from './subscription-turns';
import { classifyGatewayError } from './outcomes';
import { billsTrial, readSubscription, settleSubscription } from './subscribe';
import { transitionSession } from '../sessions/transition';
import { firstBillingOf } from '../subscriptions/service';

/** Options of the unknown-attempt resolver (DESIGN §4: a timeout after sending, a crash). */
export interface ResolveOptions {
  /** The merchant's gateway account (the reconciliation searches need it). */
  accountNumber: string;
  /** A `pending` attempt is looked up once it has been unknown this long. Default 1 minute. */
  settleAfterMs?: number;
  /**
   * An attempt of a `processing` session still unknown after this long was stranded by a crash
   * (no process is waiting for its answer any more): it becomes `pending` and is looked up.
   * Default 2 × 30 s (the gateway timeout, token included) + 1 minute.
   */
  strandedAfterMs?: number;
  /**
   * An unknown attempt with no sale in the ledger this long after its gateway call (pay or
   * validate) certainly did not happen (its search reaches from the day before it to well
   * after it, so the whole day after it has been searched). Default 24 hours.
   */
  notHappenedAfterMs?: number;
  /**
   * Subscription attempts a round looks up at most of those never looked up, and as many of
   * those looked up longest ago (`subscription-turns.ts`). Default 100.
   */
  subscriptionTurn?: number;
  /**
   * Before a subscription attempt is declared not to have happened, every subscription of its
   * plan is read, newest first, up to this many pages of 100. Default 50. A plan with more
   * leaves the attempt unknown (and says so in the log): not found is not proven.
   */
  proofPages?: number;
}

export interface ResolveReport {
  /** Found at the gateway: the payment happened; attempt and session succeeded. */
  resolved: string[];
  /** Declared not to have happened: the session takes payments again (or stays ended). */
  notHappened: string[];
  /** Not (yet) found: left unknown, looked up again next round. */
  stillUnknown: string[];
}

const DEFAULT_STRANDED_MS = 2 * 30 * MS.second + MS.minute;

/**
 * Settles attempts whose outcome is unknown: a gateway call that timed out or failed after
 * sending (session `pending`), or one a crash left without an answer (session `processing`
 * past `strandedAfterMs`). Never retried (DESIGN §4): the gateway's ledger answers. A sale
 * whose `transactionReference` is the attempt's own reference happened: attempt and session
 * succeed. A plan session's subscription is found by its order number. Nothing found for a
 * day: the payment did not happen, the session takes payments again. However old an attempt
 * is, it is looked up (rounds that did not run delay the truth, never lose it): payments by
 * clusters of the ledger, subscription attempts by turns (`subscription-turns.ts`).
 */
export async function resolveUnknownAttempts(
  ctx: BffContext,
  opts: ResolveOptions,
): Promise<ResolveReport> {
  const now = ctx.clock.now();
  const settled = now.getTime() - (opts.settleAfterMs ?? MS.minute);
  const stranded = now.getTime() - (opts.strandedAfterMs ?? DEFAULT_STRANDED_MS);
  // Payments and subscriptions apart, however old: a week or more without rounds (every
  // instance down, a store restored from a backup) must delay their truth, never lose it.
  // Payments are found in the ledger, searched by clusters of them (`ledgerSalesByAttempt`).
  // Subscription attempts are taken by turns (`subscriptionCandidates`): those a plan that
  // cannot be read or proven keeps unknown must not fill the batch and starve the rest.
  const candidates = [
    ...(await unknownAttemptsQuery(ctx.db, 'payments').execute()),
    ...(await subscriptionCandidates(ctx.db, opts.subscriptionTurn)),
  ];
  const unknown = candidates.filter((a) => {
    const age = Date.parse(a.updated_at);
    return a.session_status === 'pending' ? age <= settled : age <= stranded;
  });
  const report: ResolveReport = { resolved: [], notHappened: [], stillUnknown: [] };
  if (unknown.length === 0) return report;
  const subscriptions = unknown.filter((a) => a.plan_id).map((a) => a.id);
  await markLookedUp(ctx.db, subscriptions, now);

  for (const a of unknown) {
    if (a.session_status !== 'processing') continue;
    if (await transitionSession(ctx, a.session_id, 'processing', 'pending', now)) {
      ctx.logger.warn(
        { event: 'payment.stranded', attemptId: a.id, sessionId: a.session_id },
        'a payment left without an answer (the BFF stopped mid-call) is being confirmed',
      );
    }
  }

  const ledger = await ledgerSalesByAttempt(
    ctx,
    opts.accountNumber,
    unknown.filter((a) => !a.plan_id),
    now,
  );
  const plans = subscriptions.length > 0 ? await subscriptionsByOrderNumber(ctx) : null;
  const listings = new Map<string, PlanListing>();

  // Attempts unknown this long may be declared not to have happened (once not found).
  const dueLine = now.getTime() - (opts.notHappenedAfterMs ?? MS.day);
  for (const a of unknown) {
    let found = false;
    const due = Date.parse(a.updated_at) <= dueLine;
    if (a.plan_id) {
      let sub = plans?.get(a.gateway_reference!);
      if (!sub) {
        // Not among the newest: one whose subscription was found before is read by its id.
        try {
          sub = await knownSubscription(ctx, a.id);
        } catch (err) {
          if (!classifyGatewayError(err)) throw err;
          report.stillUnknown.push(a.id);
          continue;
        }
      }
      // Not among the newest: before saying it did not happen, read all of its plan's.
      if (!sub && due) {
        try {
          const listing = await planListing(
            ctx,
            a.plan_id,
            () => callsEndedOf(unknown, a.plan_id!, Math.max(stranded, dueLine)),
            listings,
            opts.proofPages,
            now,
          );
          const mine = listing.found.get(a.gateway_reference!);
          if (mine) {
            sub = {
              id: mine.id,
              createdDate: mine.createdDate,
              first: await firstBillingOf(ctx, mine.id, listing.pages),
            };
          } else if (!listing.complete || !listing.wanted.has(a.gateway_reference!)) {
            // Not read to the end yet, or begun before this attempt's call had ended (its
            // subscription might have been made after): the next proof of the plan tells.
            report.stillUnknown.push(a.id);
            continue;
          }
        } catch (err) {
          // The plan could not be read (gone, the gateway down): not proven, and the other
          // attempts of the round go on.
          if (!classifyGatewayError(err)) throw err;
          report.stillUnknown.push(a.id);
          continue;
        }
      }
      if (sub) {
        // It exists: never declared not to have happened. Settled, or still pending (a
        // failed first billing whose subscription could not be canceled yet).
        if (!(await settleFoundSubscription(ctx, a, sub))) {
          report.stillUnknown.push(a.id);
          continue;
        }
        found = true;
      }
    } else {
      const sales = ledger.get(a.id);
      if (!sales) {
        // Not searched this round (only the oldest clusters are): the next rounds reach it.
        report.stillUnknown.push(a.id);
        continue;
      }
      const sale = sales.find(
        (r) =>
          r.transactionReference === a.gateway_reference && reaisToCents(r.amount) === a.amount,
      );
      if (sale) {
        await linkSaleToAttempt(
          ctx,
          a,
          {
            nsu: sale.nsu,
            codAuth: sale.codAuth ?? null,
            paymentId: sale.transactionPaymentIdWeb ?? null,
            status: sale.transactionStatus,
          },
          'reconciliation',
        );
        found = true;
      }
    }
    if (found) {
      report.resolved.push(a.id);
    } else if (due) {
      await declareNotHappened(ctx, a.id, a.session_id);
      report.notHappened.push(a.id);
    } else {
      report.stillUnknown.push(a.id);
    }
  }
  return report;
}

/** The order numbers of a plan's unknown attempts whose gateway calls have certainly ended. */
function callsEndedOf(
  unknown: readonly {
    plan_id: string | null;
    gateway_reference: string | null;
    updated_at: string;
  }[],
  planId: string,
  ended: number,
): Set<string> {
  const out = new Set<string>();
  for (const a of unknown) {
    if (a.plan_id === planId && a.gateway_reference && Date.parse(a.updated_at) <= ended) {
      out.add(a.gateway_reference);
    }
  }
  return out;
}

/** The attempt certainly did not happen: the session takes payments again (or ends). */
async function declareNotHappened(ctx: BffContext, attemptId: string, sessionId: string) {
  const row = await findSession(ctx.db, sessionId);
  if (!row) return;
  await endAttemptAsFailure(ctx, row, attemptId, 'try_again_later', false, ['pending']);
  ctx.logger.warn(
    { event: 'payment.not_happened', attemptId, sessionId },
    'a payment whose outcome was unknown is not in the ledger a day later: it did not happen',
  );
}

/** Billings and subscriptions read per search page, and pages a round reads at most. */
const PAGE = 100;
const MAX_PAGES = 3;
/** Pages of a day's billings read per round for a first billing not among the newest. */
const DUE_DAY_PAGES = 10;

interface FoundSubscription {
  id: string;
  /** When the gateway made it (its clock): without a trial, its first billing's due instant. */
  createdDate: string;
  first: Billing | null;
  /** The subscription as a search or read of this round answered it (its plan nested). */
  read?: Subscription;
}

/**
 * The attempt's subscription, found at the gateway: attempt and session settle from it.
 * Resolves whether they did (false: still pending, or the session is gone).
 */
async function settleFoundSubscription(
  ctx: BffContext,
  a: { id: string; session_id: string },
  sub: FoundSubscription,
): Promise<boolean> {
  const row = await findSession(ctx.db, a.session_id);
  if (!row) return false;
  const log = ctx.logger.child({ sessionId: a.session_id, attemptId: a.id });
  // Kept on the attempt: a subscription that exists is looked up until it settles, however
  // long its first billing takes to find.
  await updateAttemptInFlight(ctx.db, a.id, { subscription_id: sub.id });
  // Not among the newest billings: without a trial the gateway billed the first installment
  // when it made the subscription, so it is looked for among the billings due that day (by the
  // gateway's clock), each round reading on from where the last stopped. A subscription
  // standing on a trial (its own terms) billed nothing yet; a Canceled one's plan may have
  // changed since, so its day is read too.
  let first = sub.first;
  let search: DueDaySearch | undefined;
  const read = first ? null : (sub.read ?? (await readSubscription(ctx, sub.id)));
  if (!first && !read) return false;
  if (read && !billsTrial(read)) {
    try {
      search = await firstBillingByDueDay(ctx, sub.id, sub.createdDate, DUE_DAY_PAGES);
      first = search.first;
    } catch (err) {
      if (!classifyGatewayError(err)) throw err;
    }
    if (!first) {
      log.warn(
        { event: 'subscription.first_billing_unseen', subscriptionId: sub.id },
        'a subscription without a trial whose first billing is not found yet: pending',
      );
    }
  }
  // Where the search stands commits with the outcome it led to (still pending: the attempt
  // looked up again), or alone when the outcome writes nothing (a decline, settled meanwhile).
  let kept = false;
  const keepSearch = async (db: BffKysely, status: PayResult['status']) => {
    await search?.keep(db, status === 'pending');
    kept = true;
  };
  const result = await settleSubscription(
    search ? { ...ctx, alongOutcome: (db, r) => keepSearch(db, r.status) } : ctx,
    row,
    a.id,
    sub.id,
    first,
    log,
    read ? { subscription: read, unbilled: !first && !!search?.ended } : undefined,
  );
  if (search && !kept) await keepSearch(ctx.db, result.status);
  log.warn(
    { event: 'payment.resolved', subscriptionId: sub.id, outcome: result.status },
    'a subscription whose creation had no answer was found at the gateway',
  );
  return result.status !== 'pending';
}

/** The subscription an attempt keeps the id of (found before), as the gateway has it now. */
async function knownSubscription(
  ctx: BffContext,
  attemptId: string,
): Promise<FoundSubscription | undefined> {
  const id = await subscriptionIdOf(ctx, attemptId);
  if (!id) return undefined;
  const sub = await ctx.gateway.getSubscription(id, { timeoutMs: 10_000 });
  return { id: sub.id, createdDate: sub.createdDate, first: null, read: sub };
}

/**
 * The merchant's recent subscriptions by order number, each with its first billing (or null:
 * a trial, or not charged yet). Newest first: the ones looked for were created lately.
 */
async function subscriptionsByOrderNumber(
  ctx: BffContext,
): Promise<Map<string, FoundSubscription>> {
  const out = new Map<string, FoundSubscription>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const found = await ctx.gateway.searchBillings(
      { orderBy: '-createdDate', page, limit: PAGE },
      { timeoutMs: 10_000 },
    );
    for (const b of found.items) {
      if (b.installment !== 1 || out.has(b.subscription.orderNumber)) continue;
      out.set(b.subscription.orderNumber, {
        id: b.subscription.id,
        createdDate: b.subscription.createdDate,
        first: b,
      });
    }
    if (page * PAGE >= found.total) break;
  }
  for (let page = 1; page <= MAX_PAGES; page++) {
    const found = await ctx.gateway.searchSubscriptions(
      { orderBy: '-createdDate', page, limit: PAGE },
      { timeoutMs: 10_000 },
    );
    for (const s of found.items) {
      if (!out.has(s.orderNumber)) {
        out.set(s.orderNumber, { id: s.id, createdDate: s.createdDate, first: null, read: s });
      }
    }
    if (page * PAGE >= found.total) break;
  }
  return out;
}
