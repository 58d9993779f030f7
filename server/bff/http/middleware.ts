import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock';
import { errorResponse } from '../../lib/http';
import { prefixedId } from '../../lib/ids';
import { FixedWindowLimiter } from '../../lib/rate-limit';
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
 * A fixed-window, in-memory limit per client address: `limit` calls per `windowMs`. Over the
 * limit the answer is 429 with `Retry-After` in seconds. Per process by design: it guards
 * a card-testing burst, not a budget. Memory is bounded (see `FixedWindowLimiter`).
 */
export function rateLimit(opts: {
  limit: number;
  windowMs: number;
  clock: Clock;
  /** The client address (`clientAddressReader`): the key of the window. */
  clientAddress: (c: Context) => string | undefined;
  /** What is limited, for the message: "payment attempts", "checkout sessions". */
  what: string;
  maxKeys?: number;
}): MiddlewareHandler<BffEnv> {
  const limiter = new FixedWindowLimiter(opts);
  return async (c, next) => {
    const verdict = limiter.hit(opts.clientAddress(c) ?? 'unknown', opts.clock.now().getTime());
    if (!verdict.ok) {
      c.header('Retry-After', String(verdict.retryAfterSeconds));
      return errorResponse(
        c,
        429,
        'rate',
        `rate: too many ${opts.what}; retry in ${verdict.retryAfterSeconds} s`,
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
