import type { Logger } from 'pino';
import type { Clock, OffsetClock } from '../lib/clock';
import type { SandboxClient } from './clients';
import type { SandboxKysely } from './db';
import type { Scheduler } from './clock/scheduler';
import type { SandboxEvents } from './events';

/** What every sandbox domain is built from; created once by `createSandboxApp`. */
export interface SandboxContext {
  db: SandboxKysely;
  /** Business time (billing, due dates, settlement, webhook schedule): can be advanced. */
  clock: OffsetClock;
  /**
   * Real time, for security windows (token lifetime, ciphertext age and skew, nonce memory,
   * rate limits): a browser encrypting with its own clock can pay whatever the sandbox date.
   */
  realClock: Clock;
  scheduler: Scheduler;
  clients: readonly SandboxClient[];
  /** How browsers and callers reach the sandbox (used in acsUrl and other links). */
  publicUrl: string;
  logger: Logger;
  /** Domain events: payments approved and canceled, for the ledger, webhooks and billings. */
  events: SandboxEvents;
  /** Outgoing HTTP (webhook delivery); injectable for tests. */
  fetch: typeof fetch;
  /** Runs on `POST /__sandbox/reset` after the data is wiped (drop in-memory state here). */
  onReset(hook: () => void | Promise<void>): void;
  /** Runs when the sandbox closes (stop timers here). */
  onClose(hook: () => void | Promise<void>): void;
}

/** Hono env of authenticated API routes. */
export interface SandboxEnv {
  Variables: { client: SandboxClient };
}

export function findClient(ctx: SandboxContext, userName: string): SandboxClient | undefined {
  return ctx.clients.find((c) => c.userName === userName);
}
