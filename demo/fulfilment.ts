import { Hono } from 'hono';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { CheckoutEvent } from '../contract/events';
import { silentLogger } from '../server/lib/logging';

/** What the store did once a payment was confirmed to it. */
export interface Fulfilment {
  sessionId: string;
  paymentId: string | null;
  subscriptionId: string | null;
  /** The event that fulfilled it (`webhook-id`). */
  eventId: string;
  fulfilledAt: string;
}

/**
 * The demo merchant's fulfilment, as a merchant should build it: from the BFF's signed
 * `checkout_session.succeeded` event, never from the shopper's redirect. The shopper may close
 * the tab right after the bank's challenge; the event still arrives (and is retried until we
 * answer 2xx), so the order is fulfilled once. Kept in memory, like the demo's carts.
 */
export class Fulfilments {
  readonly #bySession = new Map<string, Fulfilment>();
  readonly #events = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  get(sessionId: string): Fulfilment | undefined {
    return this.#bySession.get(sessionId);
  }

  /** Whether an event id was handled already (deliveries are at least once). */
  seen(eventId: string): boolean {
    return this.#events.has(eventId);
  }

  /** Records a fulfilment; resolves false when the session was fulfilled already. */
  fulfil(f: Fulfilment): boolean {
    this.#events.add(f.eventId);
    if (this.#bySession.has(f.sessionId)) return false;
    this.#bySession.set(f.sessionId, f);
    for (const store of [this.#bySession, this.#events] as const) {
      while (store.size > this.capacity) {
        const oldest = store.keys().next().value;
        if (oldest === undefined) break;
        store.delete(oldest as never);
      }
    }
    return true;
  }
}

/**
 * `POST /webhooks/checkout-events`: the BFF's events, verified with the `standardwebhooks`
 * package and the shared `whsec_…` secret (400 for a bad signature or an old timestamp, so
 * nothing unsigned fulfils an order). `checkout_session.succeeded` fulfils its order once and
 * calls `onFulfilled` (the demo empties the cart that paid); other types are acknowledged.
 */
export function checkoutEventRoutes(opts: {
  secret: string;
  fulfilments: Fulfilments;
  onFulfilled?: (f: Fulfilment) => void;
  logger?: Logger;
}): Hono {
  const wh = new Webhook(opts.secret);
  const log = opts.logger ?? silentLogger;
  return new Hono().post('/webhooks/checkout-events', async (c) => {
    const body = await c.req.text();
    let event: CheckoutEvent;
    try {
      event = wh.verify(body, {
        'webhook-id': c.req.header('webhook-id') ?? '',
        'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
        'webhook-signature': c.req.header('webhook-signature') ?? '',
      }) as CheckoutEvent;
    } catch {
      log.warn({ event: 'demo.event_refused' }, 'an event whose signature did not verify');
      return c.json({ error: 'bad signature' }, 400);
    }
    if (opts.fulfilments.seen(event.id)) return c.body(null, 204);
    if (event.type === 'checkout_session.succeeded') {
      const session = event.data as {
        id: string;
        payment?: { paymentId?: string | null; subscriptionId?: string | null } | null;
      };
      const f: Fulfilment = {
        sessionId: session.id,
        paymentId: session.payment?.paymentId ?? null,
        subscriptionId: session.payment?.subscriptionId ?? null,
        eventId: event.id,
        fulfilledAt: new Date().toISOString(),
      };
      if (opts.fulfilments.fulfil(f)) {
        log.info({ sessionId: f.sessionId, eventId: event.id }, 'order fulfilled');
        opts.onFulfilled?.(f);
      }
    }
    return c.body(null, 204);
  });
}
