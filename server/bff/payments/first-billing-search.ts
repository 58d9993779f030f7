import type { Billing } from '../../gateway/schemas';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { unknownAttemptsQuery } from '../sessions/store';
import { readPages, type PagesRead } from '../subscriptions/service';

/** Billings read per page of a due day's search (the gateway's maximum). */
const PAGE = 100;

/**
 * Where the search of each subscription's first billing among the billings due the day it was
 * made stands, per process (a restart begins them again). That listing is read oldest first:
 * a billing made since comes after the pages read, so reading on skips none.
 */
const dueDayReads = new WeakMap<BffContext, Map<string, PagesRead>>();

/**
 * The first billing of subscription `subscriptionId`, made at `createdDate` (the gateway's
 * clock) with no trial: looked for among the billings due that São Paulo day or the next,
 * `maxPages` pages on from where the last call stopped. Null when not among them yet; a day
 * read to its end without it is read again from its start by the next call.
 */
export async function firstBillingByDueDay(
  ctx: BffContext,
  subscriptionId: string,
  createdDate: string,
  maxPages: number,
): Promise<Billing | null> {
  const reads = dueDayReads.get(ctx) ?? new Map<string, PagesRead>();
  dueDayReads.set(ctx, reads);
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
    reads.get(subscriptionId),
  );
  if (first || read.complete) reads.delete(subscriptionId);
  else reads.set(subscriptionId, read);
  return first;
}

/** The São Paulo calendar day (UTC−3, no daylight saving since 2019) of an instant, plus `days`. */
function saoPauloDay(iso: string, days: number): string {
  return new Date(Date.parse(iso) - 3 * MS.hour + days * MS.day).toISOString().slice(0, 10);
}

/**
 * Unknown subscription attempts whose subscription is known (its id kept) made before `before`,
 * the oldest 200: past the resolver's lookback, yet never left unresolved — the subscription
 * exists, so the attempt is settled once its first billing is read.
 */
export function knownSubscriptionAttemptsQuery(db: BffKysely, before: string) {
  return unknownAttemptsQuery(db, new Date(0).toISOString(), 'subscriptions')
    .where('a.subscription_id', 'is not', null)
    .where('a.created_at', '<', before);
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
