import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock';
import { errorResponse } from '../../lib/http';
import { prefixedId } from '../../lib/ids';
import { readsSettled } from '../../lib/db-sync';
import { lazyChild } from '../../lib/logging';
import type { BffEnv } from '../context';
import type { RateLimits } from './rate-limits';

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
    const log = lazyChild(logger, { requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    const started = performance.now();
    await next();
    setResponseHeader(c, 'x-request-id', requestId);
    setResponseHeader(c, 'X-Content-Type-Options', 'nosniff');
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
 * Sets a header of the response a handler already made, in place. `c.header()` at that point
 * makes a new Response from the old one's body: on @hono/node-server a full undici Response
 * and a web stream for every header set, measured at 5 % of the pay path's CPU. A response
 * whose headers cannot change (one passed through from fetch) falls back to that.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/**
 * A fixed-window limit per client address: `limit` calls per `windowMs`, counted in
 * `limits` (the BFF's store by default, so the limit holds across instances). Over the limit
 * the answer is 429 with `Retry-After` in seconds.
 */
export function rateLimit(opts: {
  limits: RateLimits;
  /** The window's name in the store: `pay`, `sessions`. */
  scope: string;
  limit: number;
  windowMs: number;
  clock: Clock;
  /** The client address (`clientAddressReader`): the key of the window. */
  clientAddress: (c: Context) => string | undefined;
  /** What is limited, for the message: "payment attempts", "checkout sessions". */
  what: string;
}): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    const verdict = await opts.limits.hit(
      opts.scope,
      opts.clientAddress(c) ?? 'unknown',
      opts.limit,
      opts.windowMs,
      opts.clock.now().getTime(),
    );
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

/**
 * An answer tells only what the store will still say after a power cut: on a durable SQLite
 * store a commit is visible before its fsync ends (its writer waits, readers do not), so every
 * request waits, after its handler, until what it could have read is on disk (`readsSettled`;
 * at once when nothing is owed, and on PostgreSQL). Without it, a merchant could list an event
 * whose row a power cut then takes back, and later receive the same fact under a new id; or
 * be told by a POST that only read ("the session is failed: it cannot be expired") of a
 * decline a power cut then erases. A request answering with the outcome it settled itself
 * (`ownOutcome`) does not wait again.
 */
export function answersAfterDisk(db: object): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    await next();
    if (!c.get('ownOutcome')) await readsSettled(db);
  };
}
