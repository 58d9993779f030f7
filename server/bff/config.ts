import { MS } from '../lib/clock';
import type { TrustProxy } from './http/client-address';

/** What the BFF app is configured with (built from the environment by `env.ts`). */
export interface BffConfig {
  /** How browsers reach the BFF, no trailing slash (frame pages, TermUrl, Origin checks). */
  publicUrl: string;
  /** Server-to-server secret of the merchant API. */
  merchantSecret: string;
  /** Merchant page origins allowed to embed the frame. */
  allowedOrigins: readonly string[];
  /** Basic auth the gateway presents to the webhook receiver. */
  webhook: { user: string; password: string };
  /** Declined or failed attempts allowed per session before it fails `attempts_exhausted`. */
  maxAttempts: number;
  /** `POST /checkout/api/pay` calls allowed per client IP per minute. */
  payRateLimitPerMinute: number;
  /** Folder holding the built `widget/` and `frame/` bundles. */
  staticDir: string;
  /** How long the gateway public key is cached. */
  publicKeyTtlMs?: number;
  /** Default lifetime of a checkout session. */
  sessionTtlSeconds?: number;
  /** Lifetime of a 3DS challenge. */
  challengeTtlMs?: number;
  /**
   * Behind reverse proxies: how many hops, or which proxy addresses, are trusted to report the
   * client address in `X-Forwarded-For` (rate limits, 3DS device data). `false`: none.
   */
  trustProxy?: TrustProxy;
  /** `POST /v1/checkout-sessions` calls allowed per client address per minute; 0 = no limit. */
  sessionRateLimitPerMinute?: number;
  /** The merchant's gateway account: ledger searches confirm webhooks and unknown payments. */
  accountNumber?: string;
  /**
   * How long an instance holds the webhook inbox rows it claimed (renewed row by row as it
   * works): how long a killed instance's rows wait before another instance takes them.
   */
  inboxClaimMs?: number;
  /** Where events are delivered (`BFF_EVENTS_URL`); empty: recorded, listed, not sent. */
  eventsUrl?: string;
  /** The Standard Webhooks signing secret (`whsec_…`, `BFF_EVENTS_SECRET`). */
  eventsSecret?: string;
  /** How long one delivery may take before it counts as failed (15 s). */
  eventsTimeoutMs?: number;
}

export const BFF_DEFAULTS = {
  publicKeyTtlMs: 10 * MS.minute,
  sessionTtlSeconds: 30 * 60,
  challengeTtlMs: 10 * MS.minute,
  trustProxy: false as TrustProxy,
  sessionRateLimitPerMinute: 600,
  accountNumber: '1001',
  inboxClaimMs: MS.minute,
  eventsUrl: '',
  eventsSecret: '',
  eventsTimeoutMs: 15_000,
};

/** A config for tests and the demo: the DESIGN §4 defaults. */
export function defaultBffConfig(overrides: Partial<BffConfig> = {}): BffConfig {
  return {
    publicUrl: 'http://localhost:3001',
    merchantSecret: 'sk_test_local',
    allowedOrigins: ['http://localhost:3000'],
    webhook: { user: 'gateway', password: 'gateway' },
    maxAttempts: 3,
    payRateLimitPerMinute: 10,
    staticDir: 'dist',
    ...overrides,
  };
}
