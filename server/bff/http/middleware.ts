import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock';
import { errorResponse } from '../../lib/http';
import { prefixedId } from '../../lib/ids';
import type { BffEnv } from '../context';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Gives each request an id (the caller's `x-request-id` when well formed, else a new one),
 * echoes it on the response, and logs one line per request: method, path (no query string),
 * status and duration. Bodies and headers are never logged.
 */
export function requestContext(logger: Logger): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : prefixedId('req', 9);
    const log = logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    const started = performance.now();
    await next();
    c.header('x-request-id', requestId);
    c.header('X-Content-Type-Options', 'nosniff');
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  };
}

/**
 * The client address: the socket's peer (served by @hono/node-server), or, behind a trusted
 * reverse proxy, the first `X-Forwarded-For` entry. Undefined when neither is known.
 */
export function clientIp(c: Context, trustProxy = false): string | undefined {
  if (trustProxy) {
    const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (first && first.length <= 64) return first;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * A fixed-window, in-memory limit per client IP: `limit` calls per `windowMs`. Over the
 * limit the answer is 429 with `Retry-After` in seconds. Per process by design: it guards
 * a card-testing burst, not a budget.
 */
export function rateLimit(opts: {
  limit: number;
  windowMs: number;
  clock: Clock;
  trustProxy?: boolean;
}): MiddlewareHandler<BffEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const now = opts.clock.now().getTime();
    const key = clientIp(c, opts.trustProxy) ?? 'unknown';
    let w = windows.get(key);
    if (!w || now - w.start >= opts.windowMs) {
      w = { start: now, count: 0 };
      windows.set(key, w);
      if (windows.size > 10_000) {
        for (const [k, v] of windows) if (now - v.start >= opts.windowMs) windows.delete(k);
      }
    }
    w.count++;
    if (w.count > opts.limit) {
      const retryAfter = Math.max(1, Math.ceil((w.start + opts.windowMs - now) / 1000));
      c.header('Retry-After', String(retryAfter));
      return errorResponse(
        c,
        429,
        'rate',
        `rate: too many payment attempts; retry in ${retryAfter} s`,
      );
    }
    await next();
  };
}

/** Refuses a body over `maxBytes` with 413 (the spec's error array), before reading it all. */
export function maxBody(maxBytes: number): MiddlewareHandler<BffEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      errorResponse(c, 413, 'body', `body: must be at most ${Math.round(maxBytes / 1024)} KiB`),
  });
}
