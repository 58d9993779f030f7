import type { Billing } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import { eventDeliveryOf } from '../events/delivery';
import { eventsDb, insertEvent } from '../events/store';
import { classifyGatewayError } from '../payments/outcomes';
import { anySubscriptionAttemptQuery } from '../sessions/store';
import { readPages } from './service';

/** Billing pages read per round (newest first, the gateway's maximum page). */
const PAGE = 100;
const MAX_PAGES = 3;

/** What a billing's status tells the merchant: paid, failed, or nothing yet. */
function billingEventType(status: Billing['status']): 'billing.paid' | 'billing.failed' | null {
  if (status === 'Paid') return 'billing.paid';
  if (status === 'Denied' || status === 'PaymentInvalid') return 'billing.failed';
  return null;
}

/**
 * A sweep reads the billings due this many days before the newest billing (and 2 after): the
 * gateway retries a declined billing up to 16 days after its due date (spec, plan rule 5), so
 * a later `Paid` or `Denied` lies within it.
 */
const SWEEP_BACK_DAYS = 35;
/** Pages of each final status a sweep reads at most (latest due date first). */
const SWEEP_PAGES = 100;
/** How often an account with more billings than a round reads is swept. */
const SWEEP_EVERY_MS = 15 * MS.minute;
const FINAL_STATUSES = ['Paid', 'Denied', 'PaymentInvalid'] as const;

/** When this process last swept (a new leader sweeps at once: harmless, events dedup). */
const lastSweep = new WeakMap<BffContext, number>();

/**
 * The maintenance round's look at the gateway's billings (the recurring charges the gateway
 * makes on its own schedule): each billing of a subscription this BFF's checkout made that is
 * now paid or failed becomes `billing.paid` or `billing.failed`, once (its dedup key). The
 * gateway's own billing search is the evidence, so nothing rests on a notification's word.
 *
 * Each round reads the newest 300 billings. An account with more is also swept every 15
 * minutes: a cycle may bill more than 300 at once, and a billing paid on a retry days after it
 * was made is no longer among the newest. The sweep reads the paid and failed billings due in
 * the retry window, by status (the search has no filter by subscription). Resolves how many
 * events were new.
 */
export async function recordBillingEvents(ctx: BffContext): Promise<number> {
  let added = 0;
  const any = await anySubscriptionAttemptQuery(ctx.db).executeTakeFirst();
  if (!any) return 0;
  try {
    let total = 0;
    let newest: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const found = await ctx.gateway.searchBillings(
        { orderBy: '-createdDate', page, limit: PAGE },
        { timeoutMs: 10_000 },
      );
      if (page === 1) newest = found.items[0]?.createdDate;
      total = found.total;
      added += await recordBillings(ctx, found.items);
      if (page * PAGE >= found.total) break;
    }
    const now = ctx.clock.now().getTime();
    const last = lastSweep.get(ctx);
    if (
      total > MAX_PAGES * PAGE &&
      newest &&
      (last === undefined || now - last >= SWEEP_EVERY_MS)
    ) {
      added += await sweep(ctx, newest);
      lastSweep.set(ctx, now);
    }
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    ctx.logger.warn({ event: 'billing.read_failed' }, 'billings could not be read; next round');
  }
  if (added > 0) eventDeliveryOf(ctx)?.kick();
  return added;
}

/** The paid and failed billings due from `SWEEP_BACK_DAYS` before `newest` to 2 days after. */
async function sweep(ctx: BffContext, newest: string): Promise<number> {
  const at = Date.parse(newest);
  if (!Number.isFinite(at)) return 0;
  const day = (offset: number) => new Date(at + offset * MS.day).toISOString().slice(0, 10);
  let added = 0;
  for (const status of FINAL_STATUSES) {
    const { complete } = await readPages(
      (page) =>
        ctx.gateway.searchBillings(
          {
            status,
            expirationDateRangeStartDate: day(-SWEEP_BACK_DAYS),
            expirationDateRangeEndDate: day(2),
            orderBy: '-expireAt',
            page,
            limit: PAGE,
          },
          { timeoutMs: 10_000 },
        ),
      SWEEP_PAGES,
      async (items) => {
        added += await recordBillings(ctx, items);
        return false;
      },
    );
    if (!complete) {
      ctx.logger.warn(
        { event: 'billing.sweep_truncated', status, pages: SWEEP_PAGES },
        'more billings in the retry window than a sweep reads: the oldest were not read',
      );
    }
  }
  return added;
}

/**
 * The events of a page of billings: those of this BFF's subscriptions, paid or failed, whose
 * event is not recorded yet (looked up first: a sweep reads thousands already recorded). A
 * subscription is the merchant's once its attempt succeeded (`subscription.created`): a
 * declined first billing's canceled one, or one still being settled, is not told before.
 */
async function recordBillings(ctx: BffContext, items: Billing[]): Promise<number> {
  const ids = [...new Set(items.map((b) => b.subscription.id))];
  if (ids.length === 0) return 0;
  const ours = new Map<string, string>();
  const rows = await ctx.db
    .selectFrom('payment_attempts')
    .select(['subscription_id', 'session_id'])
    .where('subscription_id', 'in', ids)
    .where('status', '=', 'succeeded')
    .execute();
  for (const r of rows) ours.set(r.subscription_id!, r.session_id);
  const due = items.flatMap((b) => {
    const type = billingEventType(b.status);
    const sessionId = ours.get(b.subscription.id);
    return type && sessionId ? [{ b, type, sessionId, dedupKey: `${type}:${b.id}` }] : [];
  });
  if (due.length === 0) return 0;
  const known = new Set(
    (
      await eventsDb(ctx.db)
        .selectFrom('bff_events')
        .select('dedup_key')
        .where(
          'dedup_key',
          'in',
          due.map((d) => d.dedupKey),
        )
        .execute()
    ).map((r) => r.dedup_key),
  );
  let added = 0;
  for (const { b, type, sessionId, dedupKey } of due) {
    if (known.has(dedupKey)) continue;
    const id = await insertEvent(ctx.db, {
      type,
      data: {
        id: b.id,
        subscriptionId: b.subscription.id,
        sessionId,
        installment: b.installment,
        status: b.status,
        amount: reaisToCents(b.amount),
        currency: 'BRL',
        expireAt: b.expireAt,
        createdDate: b.createdDate,
      },
      sessionId,
      dedupKey,
      at: ctx.clock.now(),
      deliver: ctx.config.eventsUrl !== '',
    });
    if (id) added++;
  }
  return added;
}
