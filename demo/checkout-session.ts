import { randomUUID } from 'node:crypto';
import type { CreateSessionBody } from '../contract/checkout';
import type { Cart, CartCheckout, CartLine } from './cart';
import { refusedForGood, type MerchantClient } from './merchant-client';

/** Session states after which no payment can happen in it any more. */
const ENDED = new Set(['succeeded', 'failed', 'expired']);

/** Where a checkout the storefront holds stands, as the BFF says (server to server). */
export async function checkoutState(
  merchant: MerchantClient,
  checkout: Pick<CartCheckout, 'sessionId'>,
): Promise<'live' | 'paid' | 'ended'> {
  const found = await merchant.getSession(checkout.sessionId);
  // Not reachable now: keep the session (never open a second one that could charge too).
  if (!found.ok) return found.status === 404 ? 'ended' : 'live';
  if (found.value.status === 'succeeded') return 'paid';
  return ENDED.has(found.value.status) ? 'ended' : 'live';
}

/**
 * `changed`: the cart changed while its session was being made; that session goes to no tab
 * (it is expired before the cart gets another), so the caller answers as for a changed cart.
 */
export type OpenedCheckout =
  | { kind: 'open'; checkout: CartCheckout }
  | { kind: 'paid'; sessionId: string }
  | { kind: 'changed' }
  | { kind: 'error'; status: number };

/**
 * Expires a session at the BFF, as a merchant would: `ended` (expired now or before, or
 * ended unpaid), `paid`, or `live` (being paid, or the BFF did not answer).
 */
export async function expireCheckout(
  merchant: MerchantClient,
  sessionId: string,
): Promise<'live' | 'paid' | 'ended'> {
  const expired = await merchant.expireSession(sessionId);
  if (expired.ok || expired.status === 404) return 'ended';
  // 409: not open (paid, being paid, or ended otherwise): its status says which.
  return expired.status === 409 ? checkoutState(merchant, { sessionId }) : 'live';
}

/**
 * The sessions the cart had before it changed, expired before it gets another (another tab
 * may still show one): undefined once none is left. One paid meanwhile is the cart's order,
 * never a reason for a second session; one being paid, or a BFF not answering, leaves the
 * cart without a new session for now.
 */
async function endSuperseded(
  merchant: MerchantClient,
  cart: Cart,
): Promise<OpenedCheckout | undefined> {
  // A creation under way when the cart changed adds its session to `superseded` once made.
  const underWay = cart.superseding ?? [];
  if (underWay.length > 0) {
    await Promise.allSettled(underWay);
    cart.superseding = (cart.superseding ?? []).filter((p) => !underWay.includes(p));
  }
  for (const old of [...(cart.superseded ?? [])]) {
    const state = await expireCheckout(merchant, old.sessionId);
    if (state === 'live') return { kind: 'error', status: 409 };
    cart.superseded = (cart.superseded ?? []).filter((s) => s !== old);
    if (state === 'paid') {
      // The order page empties the cart it paid for.
      cart.checkout = old;
      return { kind: 'paid', sessionId: old.sessionId };
    }
  }
  return undefined;
}

/**
 * One cart, one open session (issue 9 §5): the cart's session is reused while it is live;
 * a new one is created only when there is none, it ended, or the cart changed (which
 * supersedes it: it is expired at the BFF first). Concurrent requests for one cart (two tabs)
 * share one creation, and the creation carries an `Idempotency-Key` kept with the cart, so a
 * retry after a lost answer gets the same session back from the BFF.
 */
export async function openCartCheckout(
  merchant: MerchantClient,
  cart: Cart,
  body: () => CreateSessionBody,
): Promise<OpenedCheckout> {
  if (cart.checkout) {
    const state = await checkoutState(merchant, cart.checkout);
    if (state === 'live') return { kind: 'open', checkout: cart.checkout };
    if (state === 'paid') return { kind: 'paid', sessionId: cart.checkout.sessionId };
    delete cart.checkout;
  }
  const superseded = await endSuperseded(merchant, cart);
  if (superseded) return superseded;
  // Another tab made the cart's new session while this one waited on the expiry: it is theirs.
  if (cart.checkout) return { kind: 'open', checkout: cart.checkout };
  const creating = (cart.creating ??= { key: `demo-${randomUUID()}`, body: body() });
  creating.promise ??= merchant.createSession(creating.body, creating.key).then((created) => {
    if (!created.ok) {
      // Refused for good: the next try starts over, its body made again. Otherwise it sends
      // the same key and body: if the BFF did create it, it answers it.
      if (refusedForGood(created.status) && cart.creating === creating) delete cart.creating;
      delete creating.promise;
      return { kind: 'error', status: created.status } as const;
    }
    const checkout: CartCheckout = {
      sessionId: created.value.id,
      clientSecret: created.value.clientSecret,
      amount: created.value.amount,
    };
    // The cart changed meanwhile: this session is superseded, handed to no tab.
    if (cart.creating !== creating) {
      (cart.superseded ??= []).push(checkout);
      return { kind: 'changed' } as const;
    }
    cart.checkout = checkout;
    delete cart.creating;
    return { kind: 'open', checkout } as const;
  });
  return creating.promise;
}

/** What each order contained, by session id, for the order page (bounded, oldest out). */
export class OrderLines {
  readonly #orders = new Map<string, CartLine[]>();

  constructor(private readonly capacity = 10_000) {}

  set(sessionId: string, lines: CartLine[]): void {
    this.#orders.delete(sessionId);
    this.#orders.set(sessionId, lines);
    while (this.#orders.size > this.capacity) {
      const oldest = this.#orders.keys().next().value;
      if (oldest === undefined) break;
      this.#orders.delete(oldest);
    }
  }

  get(sessionId: string): CartLine[] | undefined {
    return this.#orders.get(sessionId);
  }
}
