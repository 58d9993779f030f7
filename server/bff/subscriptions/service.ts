import type { Billing, BillingStatus, Subscription } from '../../gateway/schemas';
import type { FailureCode } from '../checkout-api';
import type { BffContext } from '../context';
import { classifyGatewayError } from '../payments/outcomes';
import { firstBillingOf as firstBillingEvidence } from '../sessions/service';

/** Billings read per search page (the gateway's maximum) and pages read at most. */
const BILLING_PAGE = 100;
const MAX_BILLING_PAGES = 3;
/** Billing search order: newest first (a `-` prefix for descending). */
const NEWEST_FIRST = '-createdDate';

/**
 * The first billing of a subscription just created, or null when there is none yet (a trial)
 * or the gateway could not be read. The billing search has no subscription filter: the newest
 * page of the merchant's billings holds it, since it was created a moment ago.
 */
export async function firstBillingOf(
  ctx: BffContext,
  subscriptionId: string,
): Promise<Billing | null> {
  const page = await ctx.gateway.searchBillings(
    { orderBy: NEWEST_FIRST, limit: BILLING_PAGE },
    { timeoutMs: 10_000 },
  );
  return (
    page.items.find((b) => b.subscription.id === subscriptionId && b.installment === 1) ?? null
  );
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
  plan: { id: string; name: string; amount: number; planType: string };
  billings: {
    id: string;
    status: BillingStatus;
    amount: number;
    installment: number;
    expireAt: string;
    createdDate: string;
  }[];
}

/**
 * `GET /v1/subscriptions`: the gateway's subscriptions created by this BFF's checkout
 * sessions (newest first, at most `limit`), each with its billings (newest first). Amounts
 * in cents. Subscriptions the gateway cannot find are left out.
 */
export async function listSubscriptions(
  ctx: BffContext,
  limit: number,
): Promise<{ ok: true; items: SubscriptionListItem[] } | { ok: false }> {
  const rows = await ctx.db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('subscription_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
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
        if (classifyGatewayError(err)?.kind === 'rejected') continue;
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
          amount: toCents(sub.plan.amount),
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
            amount: toCents(b.amount),
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
  return { ok: true, items };
}

const toCents = (amount: number): number => Math.round(amount * 100);
