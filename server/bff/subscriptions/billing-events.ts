import type { Billing } from '../../gateway/schemas';
import type { BffContext } from '../context';
import { eventDeliveryOf } from '../events/delivery';
import { insertEvent } from '../events/store';
import { classifyGatewayError } from '../payments/outcomes';
import { anySubscriptionAttemptQuery } from '../sessions/store';

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
 * The maintenance round's look at the gateway's billings (the recurring charges the gateway
 * makes on its own schedule): each billing of a subscription this BFF's checkout made that is
 * now paid or failed becomes `billing.paid` or `billing.failed`, once (its dedup key). The
 * gateway's own billing search is the evidence, so nothing rests on a notification's word.
 * Resolves how many events were new.
 */
export async function recordBillingEvents(ctx: BffContext): Promise<number> {
  let added = 0;
  const any = await anySubscriptionAttemptQuery(ctx.db).executeTakeFirst();
  if (!any) return 0;
  try {
    for (let page = 1; page <= MAX_PAGES; page++) {
      const found = await ctx.gateway.searchBillings(
        { orderBy: '-createdDate', page, limit: PAGE },
        { timeoutMs: 10_000 },
      );
      const ids = [...new Set(found.items.map((b) => b.subscription.id))];
      const ours = new Map<string, string>();
      if (ids.length > 0) {
        const rows = await ctx.db
          .selectFrom('payment_attempts')
          .select(['subscription_id', 'session_id'])
          .where('subscription_id', 'in', ids)
          .execute();
        for (const r of rows) ours.set(r.subscription_id!, r.session_id);
      }
      for (const b of found.items) {
        const type = billingEventType(b.status);
        const sessionId = ours.get(b.subscription.id);
        if (!type || !sessionId) continue;
        const id = await insertEvent(ctx.db, {
          type,
          data: {
            id: b.id,
            subscriptionId: b.subscription.id,
            sessionId,
            installment: b.installment,
            status: b.status,
            amount: Math.round(b.amount * 100),
            currency: 'BRL',
            expireAt: b.expireAt,
            createdDate: b.createdDate,
          },
          sessionId,
          dedupKey: `${type}:${b.id}`,
          at: ctx.clock.now(),
          deliver: ctx.config.eventsUrl !== '',
        });
        if (id) added++;
      }
      if (page * PAGE >= found.total) break;
    }
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    ctx.logger.warn({ event: 'billing.read_failed' }, 'billings could not be read; next round');
  }
  if (added > 0) eventDeliveryOf(ctx)?.kick();
  return added;
}
