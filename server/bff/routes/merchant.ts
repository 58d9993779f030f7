import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { MS } from '../../lib/clock';
import { errorResponse, parseJsonBody, parseQuery } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import { CreateSessionBodySchema, SESSION_STATUSES } from '../checkout-api';
import type { BffContext, BffEnv } from '../context';
import { rateLimit, setResponseHeader } from '../http/middleware';
import { createSessionIdempotently } from '../sessions/create-idempotent';
import { bothCursors, PAGE_QUERY, readPage } from '../http/pagination';
import { idempotentPost } from '../idempotency';
import { createSession, expireSession, refreshSession } from '../sessions/service';
import { findSession } from '../sessions/store';
import { sessionDetail, sessionSummary } from '../sessions/views';
import { cancelSubscription, listSubscriptions } from '../subscriptions/service';

/** `Authorization: Bearer <merchant secret>`, compared in constant time. */
export function requireMerchant(ctx: BffContext): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer (\S{1,200})$/.exec(header);
    if (!m || !constantTimeEqual(m[1]!, ctx.config.merchantSecret)) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(
        c,
        401,
        'Authorization',
        'Authorization: send Authorization: Bearer <merchant secret>',
      );
    }
    await next();
  };
}

export const ListSessionsQuerySchema = z
  .object({ ...PAGE_QUERY, status: z.enum(SESSION_STATUSES).optional() })
  .strict();

export const ListSubscriptionsQuerySchema = z.object({ ...PAGE_QUERY }).strict();

const bothCursorsError = (c: Context) =>
  errorResponse(
    c,
    400,
    'ending_before',
    'ending_before: give starting_after or ending_before, not both',
  );

/** Session creation per client address per minute (`BFF_SESSION_RATE_LIMIT`; 0 = none). */
function sessionLimit(ctx: BffContext): MiddlewareHandler<BffEnv> {
  const limit = ctx.config.sessionRateLimitPerMinute;
  if (limit <= 0) return (_c, next) => next();
  return rateLimit({
    limits: ctx.rateLimits,
    scope: 'sessions',
    limit,
    windowMs: MS.minute,
    clock: ctx.clock,
    clientAddress: ctx.clientAddress,
    what: 'checkout sessions',
  });
}

/**
 * The merchant API (server to server): checkout sessions (create, list, read, expire) and the
 * subscriptions they made (list, cancel). Every POST takes an `Idempotency-Key`.
 */
export function merchantRoutes(ctx: BffContext): Hono<BffEnv> {
  return new Hono<BffEnv>()
    .use('*', requireMerchant(ctx))
    .use('*', async (c, next) => {
      await next();
      setResponseHeader(c, 'Cache-Control', 'no-store');
    })
    .post('/checkout-sessions', sessionLimit(ctx), async (c) => {
      const body = await parseJsonBody(c, CreateSessionBodySchema);
      if (!body.ok) return body.response;
      const key = c.req.header('idempotency-key');
      if (key === undefined) {
        const created = await createSession(ctx, body.data);
        if (!created.ok) return c.json(created.items, created.status);
        c.get('log').info({ sessionId: created.value.id }, 'checkout session created');
        return c.json(created.value, 201);
      }
      return createSessionIdempotently(ctx, c, key, body.data);
    })
    .get('/checkout-sessions', async (c) => {
      const q = parseQuery(c, ListSessionsQuerySchema);
      if (!q.ok) return q.response;
      if (bothCursors(q.data)) return bothCursorsError(c);
      let base = ctx.db.selectFrom('checkout_sessions').selectAll();
      if (q.data.status) base = base.where('status', '=', q.data.status);
      // Open means payable now: one past its time reads expired (refreshed below) — not listed.
      if (q.data.status === 'open') {
        base = base.where('expires_at', '>', ctx.clock.now().toISOString());
      }
      const page = await readPage(base, q.data, async (id) => {
        const row = await findSession(ctx.db, id);
        return row && { createdAt: row.created_at, id: row.id };
      });
      if ('badCursor' in page) {
        return errorResponse(c, 400, page.badCursor, `${page.badCursor}: no such checkout session`);
      }
      const data = [];
      for (const row of page.data) data.push(sessionSummary(ctx, await refreshSession(ctx, row)));
      return c.json({ data, hasMore: page.hasMore });
    })
    .get('/checkout-sessions/:id', async (c) => {
      const row = await findSession(ctx.db, c.req.param('id'));
      if (!row) return errorResponse(c, 404, 'id', 'id: no such checkout session');
      return c.json(await sessionDetail(ctx, await refreshSession(ctx, row)));
    })
    .post('/checkout-sessions/:id/expire', async (c) => {
      const id = c.req.param('id');
      const at = ctx.clock.now();
      return idempotentPost(ctx.db, c, { resource: id, action: 'expire', body: {}, at }, () =>
        expireSession(ctx, id),
      );
    })
    .get('/subscriptions', async (c) => {
      const q = parseQuery(c, ListSubscriptionsQuerySchema);
      if (!q.ok) return q.response;
      if (bothCursors(q.data)) return bothCursorsError(c);
      const listed = await listSubscriptions(ctx, q.data);
      if ('badCursor' in listed) {
        return errorResponse(c, 400, listed.badCursor, `${listed.badCursor}: no such subscription`);
      }
      if (!listed.ok) {
        return errorResponse(
          c,
          503,
          'gateway',
          'gateway: subscriptions could not be read; try again later',
        );
      }
      return c.json(listed.page);
    })
    .post('/subscriptions/:id/cancel', async (c) => {
      const id = c.req.param('id');
      const at = ctx.clock.now();
      return idempotentPost(ctx.db, c, { resource: id, action: 'cancel', body: {}, at }, () =>
        cancelSubscription(ctx, id),
      );
    });
}
