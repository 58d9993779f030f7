import { Hono } from 'hono';
import { z } from 'zod';
import { EVENT_TYPES, type EventWithDelivery } from '../../../contract/events';
import { errorResponse, parseQuery } from '../../lib/http';
import type { BffContext, BffEnv } from '../context';
import { eventDeliveryOf } from '../events/delivery';
import {
  eventAttempts,
  eventsDb,
  findEvent,
  type EventAttemptRow,
  type EventRow,
} from '../events/store';
import { bothCursors, PAGE_QUERY, readPage } from '../http/pagination';
import { idempotentPost } from '../idempotency';
import { requireMerchant } from './merchant';

export const ListEventsQuerySchema = z
  .object({ ...PAGE_QUERY, type: z.enum(EVENT_TYPES).optional() })
  .strict();

/** An event as the merchant API shows it. */
export function publicEvent(row: EventRow, history?: EventAttemptRow[]): EventWithDelivery {
  return {
    id: row.id,
    type: row.type as EventWithDelivery['type'],
    createdAt: row.created_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
    delivery: {
      status: row.delivery_status as EventWithDelivery['delivery']['status'],
      attempts: Number(row.attempts),
      nextAttemptAt: row.next_attempt_at,
      deliveredAt: row.delivered_at,
      ...(history
        ? {
            history: history.map((a) => ({
              attempt: Number(a.attempt),
              at: a.at,
              status: a.status === null ? null : Number(a.status),
              error: a.error,
              durationMs: Number(a.duration_ms),
            })),
          }
        : {}),
    },
  };
}

/**
 * `GET /v1/events` (newest first, cursor paginated, `type` filter), `GET /v1/events/:id` with
 * its delivery attempts, `POST /v1/events/:id/redeliver` (a new delivery series now).
 */
export function eventRoutes(ctx: BffContext): Hono<BffEnv> {
  const db = eventsDb(ctx.db);
  return new Hono<BffEnv>()
    .use('/events', requireMerchant(ctx))
    .use('/events/*', requireMerchant(ctx))
    .get('/events', async (c) => {
      const q = parseQuery(c, ListEventsQuerySchema);
      if (!q.ok) return q.response;
      if (bothCursors(q.data)) {
        return errorResponse(
          c,
          400,
          'ending_before',
          'ending_before: give starting_after or ending_before, not both',
        );
      }
      let base = db.selectFrom('bff_events').selectAll();
      if (q.data.type) base = base.where('type', '=', q.data.type);
      const page = await readPage(base, q.data, async (id) => {
        const row = await findEvent(ctx.db, id);
        return row && { createdAt: row.created_at, id: row.id };
      });
      if ('badCursor' in page) {
        return errorResponse(c, 400, page.badCursor, `${page.badCursor}: no such event`);
      }
      return c.json({ data: page.data.map((r) => publicEvent(r)), hasMore: page.hasMore });
    })
    .get('/events/:id', async (c) => {
      const row = await findEvent(ctx.db, c.req.param('id'));
      if (!row) return errorResponse(c, 404, 'id', 'id: no such event');
      return c.json(publicEvent(row, await eventAttempts(ctx.db, row.id)));
    })
    .post('/events/:id/redeliver', async (c) => {
      const id = c.req.param('id');
      const now = ctx.clock.now();
      return idempotentPost(
        ctx.db,
        c,
        { resource: id, action: 'redeliver', body: {}, at: now },
        async () => {
          const row = await findEvent(ctx.db, id);
          if (!row) return { status: 404, body: [{ tag: 'id', description: 'id: no such event' }] };
          if (!ctx.config.eventsUrl) {
            return {
              status: 409,
              body: [
                {
                  tag: 'BFF_EVENTS_URL',
                  description: 'BFF_EVENTS_URL: no events URL is configured to deliver to',
                },
              ],
            };
          }
          await db
            .updateTable('bff_events')
            .set({
              delivery_status: 'pending',
              attempts: 0,
              next_attempt_at: now.toISOString(),
              series_started_at: now.toISOString(),
              claimed_until: null,
              // A new series: the old one's delivery no longer says this one arrived.
              delivered_at: null,
            })
            .where('id', '=', id)
            .execute();
          eventDeliveryOf(ctx)?.kick();
          const fresh = (await findEvent(ctx.db, id))!;
          return { status: 202, body: publicEvent(fresh) };
        },
      );
    });
}
