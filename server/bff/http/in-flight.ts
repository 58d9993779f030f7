import type { MiddlewareHandler } from 'hono';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How long a reading of the event loop's business lasts before it is taken again. */
const WINDOW_MS = 20;
/** Busier than this over the last window: requests may be waiting unread in their sockets. */
const BUSY = 0.8;

/**
 * Whether this process is handling one request alone. A durable SQLite store asks it before a
 * commit's fsync (`alone`): alone, the fsync runs on the event loop, which nothing
 * else needs meanwhile, instead of a hand-off to the thread pool and back.
 *
 * The requests counted in flight are those a handler has begun: a request still unread in its
 * socket is not one of them, and on SQLite, whose statements run synchronously, a handler may
 * reach its commit before the event loop reads the next request at all. So a busy event loop
 * (more than 80 % of the last 20 ms or more) counts as not alone either.
 */
export class InFlight {
  private n = 0;
  private drained: (() => void)[] = [];
  private markedAt = performance.now();
  private busy = 0;

  /**
   * `utilization`: how busy the event loop was since it was last asked (0–1); the loop's own
   * measure by default. A test gives its own: the loop's real business depends on whatever
   * else the machine runs.
   */
  constructor(private readonly utilization: () => number = loopUtilization()) {}

  /** Whether at most one request (the one committing) is handled and the loop was not busy. */
  alone(): boolean {
    if (this.n > 1) return false;
    const now = performance.now();
    if (now - this.markedAt >= WINDOW_MS) {
      this.busy = this.utilization();
      this.markedAt = now;
    }
    return this.busy <= BUSY;
  }

  /**
   * Resolves once no handler runs: a stop waits for it before the gateway and the store close,
   * whether or not the client is still there to read the answer (a pay whose shopper left
   * still settles its attempt).
   */
  idle(): Promise<void> {
    return this.n === 0 ? Promise.resolve() : new Promise((resolve) => this.drained.push(resolve));
  }

  middleware(): MiddlewareHandler {
    return async (_c, next) => {
      this.n++;
      try {
        await next();
      } finally {
        if (--this.n === 0) for (const resolve of this.drained.splice(0)) resolve();
      }
    };
  }
}

/** The event loop's utilization since the previous call (the first: since this was made). */
export function loopUtilization(): () => number {
  let mark: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, mark);
    mark = now;
    return utilization;
  };
}
