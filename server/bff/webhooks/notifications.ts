import { Hono } from 'hono';
import { z } from 'zod';
import { queryInt } from '../../gateway/schemas/common';
import { errorResponse, parseQuery } from '../../lib/http';
import type { BffContext, BffEnv } from '../context';
import { requireMerchant } from '../routes/merchant';
import { webhookReceiverOf } from './receiver';
import { inboxDb } from './store';

/** One gateway notification as the merchant API lists it. */
export interface WebhookNotificationItem {
  movementId: number;
  nsu: string;
  codAuth: string;
  installmentNumber: number;
  moment: string;
  type: string;
  oldValue: string | null;
  newValue: string;
  receivedAt: string;
  /** `received` (not yet applied) | `processed` (matched a payment of ours) | `unmatched`. */
  status: string;
  processedAt: string | null;
  /** Redeliveries of the same movement after the first. */
  duplicates: number;
  /** The checkout session whose payment the notification matched, if any. */
  sessionId: string | null;
}

export const NOTIFICATIONS_DEFAULT_LIMIT = 50;
export const NOTIFICATIONS_MAX_LIMIT = 200;

export const ListNotificationsQuerySchema = z
  .object({
    limit: queryInt({ min: 1, max: NOTIFICATIONS_MAX_LIMIT }).optional(),
    /** Only notifications whose movementId is greater (newer) than this one. */
    after: queryInt({ min: 0 }).optional(),
    /** The page after this movementId (older ones): the cursors of every `/v1` list. */
    starting_after: queryInt({ min: 0 }).optional(),
    /** The page before this movementId (newer ones). */
    ending_before: queryInt({ min: 0 }).optional(),
  })
  .strict();
export type ListNotificationsQuery = z.infer<typeof ListNotificationsQuerySchema>;

/**
 * The inbox newest first (by the gateway's movementId, which grows with every movement), each
 * row with the session its payment belongs to. Reads only: the receiver owns the table.
 */
export async function listWebhookNotifications(
  ctx: BffContext,
  query: { limit: number; after?: number; startingAfter?: number; endingBefore?: number },
): Promise<{ data: WebhookNotificationItem[]; hasMore: boolean }> {
  await webhookReceiverOf(ctx).ready;
  const backwards = query.endingBefore !== undefined;
  let q = inboxDb(ctx.db)
    .selectFrom('webhook_inbox')
    .selectAll()
    .orderBy('movement_id', backwards ? 'asc' : 'desc')
    .orderBy('body_hash')
    .limit(query.limit + 1);
  if (backwards) q = q.where('movement_id', '>', query.endingBefore!);
  if (query.after !== undefined) q = q.where('movement_id', '>', query.after);
  if (query.startingAfter !== undefined) q = q.where('movement_id', '<', query.startingAfter);
  const found = await q.execute();
  let hasMore = found.length > query.limit;
  const rows = found.slice(0, query.limit);
  const edge = rows.at(-1);
  if (hasMore && edge && Number(found[query.limit]!.movement_id) === Number(edge.movement_id)) {
    // Two bodies under one movementId (a conflict, both kept) never straddle a page: the
    // cursor is the movementId, so the next page would start past the rest of them.
    const rest = await inboxDb(ctx.db)
      .selectFrom('webhook_inbox')
      .selectAll()
      .where('movement_id', '=', edge.movement_id)
      .where('body_hash', '>', edge.body_hash)
      .orderBy('body_hash')
      .execute();
    rows.push(...rest);
    const beyond = await inboxDb(ctx.db)
      .selectFrom('webhook_inbox')
      .select('movement_id')
      .where('movement_id', backwards ? '>' : '<', edge.movement_id)
      .$if(query.after !== undefined, (b) => b.where('movement_id', '>', query.after!))
      .limit(1)
      .execute();
    hasMore = beyond.length > 0;
  }
  if (backwards) rows.reverse();
  const attemptIds = [...new Set(rows.flatMap((r) => (r.attempt_id ? [r.attempt_id] : [])))];
  const sessionOf = new Map<string, string>();
  if (attemptIds.length > 0) {
    const attempts = await ctx.db
      .selectFrom('payment_attempts')
      .select(['id', 'session_id'])
      .where('id', 'in', attemptIds)
      .execute();
    for (const a of attempts) sessionOf.set(a.id, a.session_id);
  }
  const data = rows.map((r) => ({
    // PostgreSQL hands bigint back as a string.
    movementId: Number(r.movement_id),
    nsu: r.nsu,
    codAuth: r.cod_auth,
    installmentNumber: Number(r.installment_number),
    moment: r.moment,
    type: r.type,
    oldValue: r.old_value,
    newValue: r.new_value,
    receivedAt: r.received_at,
    status: r.status,
    processedAt: r.processed_at,
    duplicates: Number(r.duplicates),
    sessionId: (r.attempt_id && sessionOf.get(r.attempt_id)) ?? null,
  }));
  return { data, hasMore };
}

/** `GET /v1/webhook-notifications?limit&after&starting_after&ending_before`: merchant API (Bearer merchant secret). */
export function webhookNotificationRoutes(ctx: BffContext): Hono<BffEnv> {
  return new Hono<BffEnv>()
    .use('/webhook-notifications', requireMerchant(ctx))
    .get('/webhook-notifications', async (c) => {
      const q = parseQuery(c, ListNotificationsQuerySchema);
      if (!q.ok) return q.response;
      if (q.data.starting_after !== undefined && q.data.ending_before !== undefined) {
        return errorResponse(
          c,
          400,
          'ending_before',
          'ending_before: give starting_after or ending_before, not both',
        );
      }
      const page = await listWebhookNotifications(ctx, {
        limit: q.data.limit ?? NOTIFICATIONS_DEFAULT_LIMIT,
        ...(q.data.after !== undefined ? { after: q.data.after } : {}),
        ...(q.data.starting_after !== undefined ? { startingAfter: q.data.starting_after } : {}),
        ...(q.data.ending_before !== undefined ? { endingBefore: q.data.ending_before } : {}),
      });
      c.header('Cache-Control', 'no-store');
      return c.json(page);
    });
}
