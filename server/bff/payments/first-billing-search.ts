import type { Billing } from '../../gateway/schemas';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { IN_FLIGHT } from '../sessions/store';
import { readPages } from '../subscriptions/service';

/** Billings read per page of a due day's search (the gateway's maximum). */
const PAGE = 100;

/** One round's reading of a due day's billings for a subscription's first billing. */
export interface DueDaySearch {
  /** The first billing, if found. */
  first: Billing | null;
  /** The search ended: the billing found, or the day read to its end without it. */
  ended: boolean;
  /**
   * Keeps where the search stands for the next round (in `db`, the transaction of what the
   * round records about the attempt): the last page read, or nothing once the search ended —
   * the billing found, the day read to its end without it, or the attempt no longer `pending`.
   */
  keep(db: BffKysely, pending: boolean): Promise<void>;
}

/**
 * The first billing of subscription `subscriptionId`, made at `createdDate` (the gateway's
 * clock) with no trial: looked for among the billings due that São Paulo day or the next,
 * `maxPages` pages on from where the last round stopped (`bff_due_day_reads`, in the store: a
 * restart or a new leader reads on, not from page 1). That listing is read oldest first: a
 * billing made since comes after the pages read, and one that moves the rest down makes a
 * page repeat some, never skip one. Null when not among them yet; a day read to its end
 * without it is read again from its start by the next round (one that left the listing may
 * have moved it up past the pages read).
 */
export async function firstBillingByDueDay(
  ctx: BffContext,
  subscriptionId: string,
  createdDate: string,
  maxPages: number,
): Promise<DueDaySearch> {
  const from = await ctx.db
    .selectFrom('bff_due_day_reads')
    .select(['pages', 'seen'])
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  let first: Billing | null = null;
  const read = await readPages(
    (page) =>
      ctx.gateway.searchBillings(
        {
          expirationDateRangeStartDate: saoPauloDay(createdDate, 0),
          expirationDateRangeEndDate: saoPauloDay(createdDate, 1),
          orderBy: 'createdDate',
          page,
          limit: PAGE,
        },
        { timeoutMs: 10_000 },
      ),
    maxPages,
    (items) => {
      first =
        items.find((b) => b.subscription.id === subscriptionId && b.installment === 1) ?? null;
      return first !== null;
    },
    from && { complete: false, pages: Number(from.pages), seen: Number(from.seen) },
  );
  const ended = first !== null || read.complete;
  const at = ctx.clock.now().toISOString();
  return {
    first,
    ended,
    async keep(db, pending) {
      if (ended || !pending) {
        await forgetDueDayRead(db, subscriptionId);
        return;
      }
      const position = { pages: read.pages, seen: read.seen, updated_at: at };
      await db
        .insertInto('bff_due_day_reads')
        .values({ subscription_id: subscriptionId, ...position })
        .onConflict((oc) => oc.column('subscription_id').doUpdateSet(position))
        .execute();
    },
  };
}

function forgetDueDayRead(db: BffKysely, subscriptionId: string) {
  return db.deleteFrom('bff_due_day_reads').where('subscription_id', '=', subscriptionId).execute();
}

/**
 * Deletes where searches stand whose subscription has no attempt in flight any more (settled
 * meanwhile another way: a notification of its first billing, say): no round reads on.
 */
export async function pruneDueDayReads(db: BffKysely): Promise<void> {
  await db
    .deleteFrom('bff_due_day_reads')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payment_attempts')
            .select('payment_attempts.id')
            .whereRef('payment_attempts.subscription_id', '=', 'bff_due_day_reads.subscription_id')
            .where('payment_attempts.status', 'in', IN_FLIGHT),
        ),
      ),
    )
    .execute();
}

/** The São Paulo calendar day (UTC−3, no daylight saving since 2019) of an instant, plus `days`. */
function saoPauloDay(iso: string, days: number): string {
  return new Date(Date.parse(iso) - 3 * MS.hour + days * MS.day).toISOString().slice(0, 10);
}

/** The subscription id an attempt keeps, if any. */
export async function subscriptionIdOf(ctx: BffContext, attemptId: string) {
  const row = await ctx.db
    .selectFrom('payment_attempts')
    .select('subscription_id')
    .where('id', '=', attemptId)
    .executeTakeFirst();
  return row?.subscription_id ?? null;
}
