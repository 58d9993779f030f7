import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock';
import type { PayResult } from './checkout-api';
import type { BffConfig } from './config';
import type { BffKysely } from './db';
import type { BffGateway } from './gateway-port';
import type { RateLimits } from './http/rate-limits';
import type { PublicKeyCache } from './routes/public-key';
import type { SessionRow } from './sessions/store';

/** What every BFF route and domain function is built from; made once by `createBffApp`. */
export interface BffContext {
  db: BffKysely;
  gateway: BffGateway;
  config: Required<BffConfig>;
  clock: Clock;
  logger: Logger;
  fetch: typeof fetch;
  /** The client address of a request, through the trusted proxies only (`BFF_TRUST_PROXY`). */
  clientAddress: (c: Context) => string | undefined;
  /** Where rate-limit windows are counted (the store: shared by every instance). */
  rateLimits: RateLimits;
  /** The gateway's card public key (`GET /checkout/api/public-key`), dropped on a refusal. */
  publicKey: PublicKeyCache;
  /**
   * Set for one pay under its Idempotency-Key: the outcome's transaction stores the answer
   * with it (idempotency.ts `AnswerKeeper`), so the key's record costs no commit of its own.
   */
  keepAnswer?: (db: BffKysely, result: PayResult) => Promise<void>;
  /**
   * Set for one resolver look-up: what the outcome's transaction writes with the outcome
   * (where the search of a subscription's first billing stands: first-billing-search.ts).
   */
  alongOutcome?: (db: BffKysely, result: PayResult) => Promise<void>;
}

/** Hono env of BFF routes: the request id and its logger; the session once authenticated. */
export interface BffEnv {
  Variables: {
    requestId: string;
    log: Logger;
    session: SessionRow;
    /**
     * The answer is the outcome this request settled itself (`keepAnswer`): its commits waited
     * for the disk as much as they had to, so `answersAfterDisk` does not wait again.
     */
    ownOutcome?: boolean;
  };
}
