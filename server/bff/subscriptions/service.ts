import type { Billing, BillingStatus, Subscription } from '../../gateway/schemas';
import { reaisToCents } from '../../gateway/money';
import { MS } from '../../lib/clock';
import type { FailureCode } from '../checkout-api';
import type { BffContext } from '../context';
import { answeredNotFound, classifyGatewayError } from '../payments/outcomes';
import { firstBillingOf as firstBillingEvidence } from '../sessions/views';
import type { ListPage } from '../../../contract/events';
import { readPage, type PageRequest } from '../http/pagination';
import { recordSubscriptionCanceled } from '../events/record';
import { atomically } from '../atomic';

/** Billings read per search page (the gateway's maximum) and pages read at most. */
const BILLING_PAGE = 100;
const MAX_BILLING_PAGES = 3;
/** Billing search order: newest first (a `-` prefix for descending). */
const NEWEST_FIRST = '-createdDate';

/** Where a paged read stands: the last page read and the items seen up to it. */
export interface PagesRead {
  /** Read to the end of the listing. */
  complete: boolean;
  /** The last page read (its number in the listing, from 1). */
  pages: number;
  /** Items seen on pages 1 to `pages`. */
  seen: number;
}

/**
 * Reads a gateway search page by page, `onPage` given each page's items, until the listing
 * ends, `onPage` answers true (enough), or `maxPages` were read. Resolves whether the listing
 * was read to its end and how many pages were read. Items added meanwhile come first and push
 * the rest down (newest-first searches): a page may repeat an item, never skip one — so a read
 * stopped at `maxPages` may go on later from where it stood (`from`) and still miss nothing
 * that was in the listing when it began, as long as nothing left it (a name search loses the
 * subscriptions of a plan renamed away: the resolver's `planListing` begins again then).
 */
export async function readPages<T>(
  search: (page: number) => Promise<{ items: T[]; total: number }>,
  maxPages: number,
  onPage: (items: T[]) => boolean | Promise<boolean>,
  from: PagesRead = { complete: false, pages: 0, seen: 0 },
): Promise<PagesRead> {
  let seen = from.seen;
  for (let page = from.pages + 1; page <= from.pages + maxPages; page++) {
    const found = await search(page);
    seen += found.items.length;
    if (await onPage(found.items)) return { complete: false, pages: page, seen };
    if (found.items.length === 0 || seen >= found.total)
      return { complete: true, pages: page, seen };
  }
  return { complete: false, pages: from.pages + maxPages, seen };
}

/**
 * The first billing of a subscription, or null when there is none yet (a trial) or it is not
 * among the newest `maxPages` pages of the merchant's billings (with `dueAround`: among those
 * due around that instant). The billing search has no
 * subscription filter: for one just created, the newest page holds it, unless the gateway is
 * billing a cycle at that moment.
 */
export async function firstBillingOf(
  ctx: BffContext,
  subscriptionId: string,
  maxPages = MAX_BILLING_PAGES,
  dueAround?: string,
): Promise<Billing | null> {
  let first: Billing | null = null;
  // Known due instant (no trial: the subscription's creation, by the gateway's clock): the
  // billings due that São Paulo day or the next, oldest first, where an old subscription's
  // first one is found however many were made since.
  const window = dueAround
    ? {
        expirationDateRangeStartDate: saoPauloDay(dueAround, 0),
        expirationDateRangeEndDate: saoPauloDay(dueAround, 1),
        orderBy: 'createdDate',
      }
    : { orderBy: NEWEST_FIRST };
  await readPages(
    (page) =>
      ctx.gateway.searchBillings({ ...window, page, limit: BILLING_PAGE }, { timeoutMs: 10_000 }),
    maxPages,
    (items) => {
      first =
        items.find((b) => b.subscription.id === subscriptionId && b.installment === 1) ?? null;
      return first !== null;
    },
  );
  return first;
}

/** The São Paulo calendar day (UTC−3, no daylight saving since 2019) of an instant, plus `days`. */
function saoPauloDay(iso: string, days: number): string {
  return new Date(Date.parse(iso) - 3 * MS.hour + days * MS.day).toISOString().slice(0, 10);
}

/**
 * What a first billing that was not paid means for the shopper. The billing carries no
 * authorizer code: `Opened` right after creation is a `51` waiting for its retry;
 * `Denied` another decline (or the retries used up); `PaymentInvalid` a card the gateway
 * could not charge.
 */
export function firstBillingFailure(status: BillingStatus): FailureCode | null {
  switch (status) {
    case 'Paid':
      return null;
    case 'Opened':
      return 'insufficient_funds';
    case 'PaymentInvalid':
      return 'invalid_card';
    default:
      return 'declined';
  }
}

export interface SubscriptionListItem {
  id: string;
  status: Subscription['status'];
  orderNumber: string;
  createdDate: string;
  sessionId: string;
  /** The first billing's evidence kept by the checkout (null when none was charged yet). */
  firstBilling: ReturnType<typeof firstBillingEvidence>;
  plan: { id: string; name: string; amount: number; currency: 'BRL'; planType: string };
  billings: {
    id: string;
    status: BillingStatus;
    amount: number;
    currency: 'BRL';
    installment: number;
    expireAt: string;
    createdDate: string;
  }[];
}

/**
 * `GET /v1/subscriptions`: the gateway's subscriptions created by this BFF's checkout
 * sessions (newest first, cursor paginated by subscription id), each with its billings
 * (newest first). Amounts in cents. Subscriptions the gateway cannot find are left out.
 */
export async function listSubscriptions(
  ctx: BffContext,
  req: PageRequest,
): Promise<
  | { ok: true; page: ListPage<SubscriptionListItem> }
  | { ok: false }
  | { badCursor: 'starting_after' | 'ending_before' }
> {
  const attemptOf = (subscriptionId: string) =>
    ctx.db
      .selectFrom('payment_attempts')
      .select(['id', 'created_at'])
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirst();
  const found = await readPage(
    ctx.db.selectFrom('payment_attempts').selectAll().where('subscription_id', 'is not', null),
    req,
    async (id) => {
      const a = await attemptOf(id);
      return a && { createdAt: a.created_at, id: a.id };
    },
  );
  if ('badCursor' in found) return found;
  const rows = found.data;
  const items: SubscriptionListItem[] = [];
  const byId = new Map<string, SubscriptionListItem>();
  try {
    for (const row of rows) {
      const id = row.subscription_id!;
      if (byId.has(id)) continue;
      let sub: Subscription;
      try {
        sub = await ctx.gateway.getSubscription(id, { timeoutMs: 10_000 });
      } catch (err) {
        if (classifyGatewayError(err)?.kind === 'rejected' || answeredNotFound(err)) continue;
        throw err;
      }
      const item: SubscriptionListItem = {
        id: sub.id,
        status: sub.status,
        orderNumber: sub.orderNumber,
        createdDate: sub.createdDate,
        sessionId: row.session_id,
        firstBilling: firstBillingEvidence(row),
        plan: {
          id: sub.plan.id,
          name: sub.plan.name,
          amount: reaisToCents(sub.plan.amount),
          currency: 'BRL',
          planType: sub.plan.planType,
        },
        billings: [],
      };
      byId.set(id, item);
      items.push(item);
    }
    if (items.length > 0) {
      for (let page = 1; page <= MAX_BILLING_PAGES; page++) {
        const found = await ctx.gateway.searchBillings(
          { orderBy: NEWEST_FIRST, page, limit: BILLING_PAGE },
          { timeoutMs: 10_000 },
        );
        for (const b of found.items) {
          byId.get(b.subscription.id)?.billings.push({
            id: b.id,
            status: b.status,
            amount: reaisToCents(b.amount),
            currency: 'BRL',
            installment: b.installment,
            expireAt: b.expireAt,
            createdDate: b.createdDate,
          });
        }
        if (page * BILLING_PAGE >= found.total) break;
      }
    }
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    ctx.logger.warn({ err: { name: (err as Error).name } }, 'subscriptions could not be read');
    return { ok: false };
  }
  return { ok: true, page: { data: items, hasMore: found.hasMore } };
}

/**
 * `POST /v1/subscriptions/:id/cancel`: cancels, at the gateway (its subscription status
 * operation), a subscription this BFF's checkout made, and writes `subscription.canceled`.
 * Canceling a canceled subscription answers it as it is, without a second event.
 */
export async function cancelSubscription(
  ctx: BffContext,
  id: string,
): Promise<{ status: number; body: unknown }> {
  const attempt = await ctx.db
    .selectFrom('payment_attempts')
    .select(['id', 'session_id', 'status'])
    .where('subscription_id', '=', id)
    .executeTakeFirst();
  if (!attempt) {
    return { status: 404, body: [{ tag: 'id', description: 'id: no such subscription' }] };
  }
  let sub: Subscription;
  try {
    sub = await ctx.gateway.getSubscription(id, { timeoutMs: 10_000 });
    if (sub.status !== 'Canceled') {
      await ctx.gateway.setSubscriptionStatus(
        { subscriptionId: id, status: 'Canceled' },
        { timeoutMs: 10_000 },
      );
      sub = await ctx.gateway.getSubscription(id, { timeoutMs: 10_000 });
    }
  } catch (err) {
    const failure = classifyGatewayError(err);
    if (!failure) throw err;
    if (failure.kind === 'rejected' || answeredNotFound(err)) {
      return {
        status: 409,
        body: [
          { tag: 'status', description: 'status: the gateway refused to cancel this subscription' },
        ],
      };
    }
    return {
      status: 503,
      body: [
        {
          tag: 'gateway',
          description: 'gateway: the subscription could not be canceled now; try again later',
        },
      ],
    };
  }
  if (sub.status !== 'Canceled') {
    return {
      status: 409,
      body: [{ tag: 'status', description: `status: the gateway still shows it ${sub.status}` }],
    };
  }
  const data = canceledSubscription(ctx, sub, attempt.session_id);
  await keepCanceled(ctx, attempt.id, attempt.session_id, data);
  return { status: 200, body: data };
}

/** What the merchant is told of a subscription canceled now (`subscription.canceled`). */
export function canceledSubscription(
  ctx: BffContext,
  sub: Pick<Subscription, 'id' | 'orderNumber' | 'plan'>,
  sessionId: string,
) {
  return {
    id: sub.id,
    status: 'Canceled' as const,
    orderNumber: sub.orderNumber,
    sessionId,
    plan: {
      id: sub.plan.id,
      name: sub.plan.name,
      amount: reaisToCents(sub.plan.amount),
      currency: 'BRL',
    },
    canceledAt: ctx.clock.now().toISOString(),
  };
}

/**
 * Keeps the cancel on the attempt (the first one's data) and tells it now when the merchant
 * was told of the subscription (`subscription.created`: its checkout succeeded). A checkout
 * still pending tells it when it succeeds, after `subscription.created` (events/record.ts);
 * one a declined first billing left (canceled by the checkout, the session maybe paid since
 * with another card) has no event of its own to end. The attempt's status is read by the
 * update that keeps the cancel: a settlement writing the attempt meanwhile either commits
 * before it (and is seen succeeded here) or after it (and sees the cancel kept).
 */
async function keepCanceled(
  ctx: BffContext,
  attemptId: string,
  sessionId: string,
  data: { id: string } & Record<string, unknown>,
): Promise<void> {
  await atomically(ctx, async (tx) => {
    const kept = await tx.db
      .updateTable('payment_attempts')
      .set((eb) => ({
        subscription_canceled_json: eb.fn.coalesce(
          'subscription_canceled_json',
          eb.val(JSON.stringify(data)),
        ),
      }))
      .where('id', '=', attemptId)
      .returning(['status', 'subscription_canceled_json'])
      .executeTakeFirst();
    if (kept?.status !== 'succeeded' || !kept.subscription_canceled_json) return;
    const first = JSON.parse(kept.subscription_canceled_json) as typeof data;
    await recordSubscriptionCanceled(tx, first, sessionId);
  });
}
