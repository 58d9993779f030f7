import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { MS } from '../../lib/clock';
import { queryInt } from '../../gateway/schemas/common';
import { errorResponse, parseJsonBody, parseQuery } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import { CreateSessionBodySchema, SESSION_STATUSES } from '../checkout-api';
import type { BffContext, BffEnv } from '../context';
import { rateLimit } from '../http/middleware';
import { createSessionIdempotently } from '../sessions/create-idempotent';
import { createSession, refreshSession, sessionDetail, sessionSummary } from '../sessions/service';
import { findSession, listSessions } from '../sessions/store';
import { listSubscriptions } from '../subscriptions/service';

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

const ListQuerySchema = z
  .object({
    limit: queryInt({ min: 1, max: 100 }).optional(),
    status: z.enum(SESSION_STATUSES).optional(),
  })
  .strict();

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

/** The merchant API: `/v1/checkout-sessions` (server to server). */
export function merchantRoutes(ctx: BffContext): Hono<BffEnv> {
  return new Hono<BffEnv>()
    .use('*', requireMerchant(ctx))
    .use('*', async (c, next) => {
      await next();
      c.header('Cache-Control', 'no-store');
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
      const q = parseQuery(c, ListQuerySchema);
      if (!q.ok) return q.response;
      const rows = await listSessions(ctx.db, {
        limit: q.data.limit ?? 20,
        ...(q.data.status ? { status: q.data.status } : {}),
      });
      const items = [];
      for (const row of rows) items.push(sessionSummary(ctx, await refreshSession(ctx, row)));
      return c.json({ items });
    })
    .get('/subscriptions', async (c) => {
      const q = parseQuery(
        c,
        z.object({ limit: queryInt({ min: 1, max: 50 }).optional() }).strict(),
      );
      if (!q.ok) return q.response;
      const listed = await listSubscriptions(ctx, q.data.limit ?? 20);
      if (!listed.ok) {
        return errorResponse(
          c,
          503,
          'gateway',
          'gateway: subscriptions could not be read; try again later',
        );
      }
      return c.json({ items: listed.items });
    })
    .get('/checkout-sessions/:id', async (c) => {
      const row = await findSession(ctx.db, c.req.param('id'));
      if (!row) return errorResponse(c, 404, 'id', 'id: no such checkout session');
      return c.json(await sessionDetail(ctx, await refreshSession(ctx, row)));
    });
}
