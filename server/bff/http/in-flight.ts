import type { MiddlewareHandler } from 'hono';

/**
 * The requests this process is handling now. A durable SQLite store asks it whether a commit
 * is alone (`syncInlineWhen`): then its fsync runs on the event loop, which nothing else
 * needs meanwhile, instead of a hand-off to the thread pool and back.
 */
export class InFlight {
  private n = 0;

  /** Whether at most one request (the one committing) is being handled. */
  alone(): boolean {
    return this.n <= 1;
  }

  middleware(): MiddlewareHandler {
    return async (_c, next) => {
      this.n++;
      try {
        await next();
      } finally {
        this.n--;
      }
    };
  }
}
