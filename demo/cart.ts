import { randomBytes } from 'node:crypto';
import type { CreateSessionBody } from '../contract/checkout';
import { findProduct, type Product } from './catalog';

/** The checkout session a cart is being paid with: ids only, never card data. */
export interface CartCheckout {
  sessionId: string;
  clientSecret: string;
  amount: number;
}

export interface Cart {
  id: string;
  /** productId → quantity. */
  items: Map<string, number>;
  checkout?: CartCheckout;
  /**
   * Sessions made for the cart as it was before it changed: each is expired at the BFF before
   * the cart gets another (one cart, one charge; `openCartCheckout`).
   */
  superseded?: CartCheckout[];
  /**
   * The session being created for this cart (two tabs posting "Finalizar compra" at once share
   * it) and the `Idempotency-Key` it is created with, kept until the cart changes so a retry
   * after a lost answer gets the same session from the BFF.
   */
  creating?: {
    key: string;
    body: CreateSessionBody;
    promise?: Promise<
      | { kind: 'open'; checkout: CartCheckout }
      | { kind: 'changed' }
      | { kind: 'error'; status: number }
    >;
  };
  /**
   * Creations under way when the cart changed: awaited before the cart gets another session,
   * so what they make is superseded (and expired) first.
   */
  superseding?: Promise<unknown>[];
  touchedAt: number;
}

export interface CartLine {
  product: Product;
  quantity: number;
  subtotal: number;
}

export const MAX_QUANTITY = 10;

/**
 * Carts in memory, keyed by a random id the browser keeps in a cookie. The browser holds no
 * prices: the total is always computed here from the catalog. Oldest carts are evicted past
 * `capacity`, so a flood of new cookies cannot grow memory without bound.
 */
export class CartStore {
  readonly #carts = new Map<string, Cart>();

  constructor(private readonly capacity = 10_000) {}

  get(id: string | undefined): Cart | undefined {
    if (!id) return undefined;
    const cart = this.#carts.get(id);
    if (cart) {
      cart.touchedAt = Date.now();
      // Re-insert so the Map's order stays least-recently-used first.
      this.#carts.delete(id);
      this.#carts.set(id, cart);
    }
    return cart;
  }

  create(): Cart {
    const cart: Cart = {
      id: randomBytes(18).toString('base64url'),
      items: new Map(),
      touchedAt: Date.now(),
    };
    this.#carts.set(cart.id, cart);
    while (this.#carts.size > this.capacity) {
      const oldest = this.#carts.keys().next().value;
      if (oldest === undefined) break;
      this.#carts.delete(oldest);
    }
    return cart;
  }

  /**
   * Sets a product's quantity (0 removes it); any pending checkout no longer matches: its
   * session, or the one being made, is kept as superseded, to be expired before the cart gets
   * another.
   */
  setQuantity(cart: Cart, productId: string, quantity: number): boolean {
    if (!findProduct(productId)) return false;
    const q = Math.max(0, Math.min(MAX_QUANTITY, Math.trunc(quantity)));
    if (q === 0) cart.items.delete(productId);
    else cart.items.set(productId, q);
    if (cart.checkout) (cart.superseded ??= []).push(cart.checkout);
    if (cart.creating?.promise) (cart.superseding ??= []).push(cart.creating.promise);
    delete cart.checkout;
    delete cart.creating;
    return true;
  }

  add(cart: Cart, productId: string): boolean {
    return this.setQuantity(cart, productId, (cart.items.get(productId) ?? 0) + 1);
  }

  clear(cart: Cart): void {
    cart.items.clear();
    delete cart.checkout;
    delete cart.creating;
  }

  /** Empties the cart whose open checkout is `sessionId` (its order was fulfilled). */
  clearCheckout(sessionId: string): boolean {
    for (const cart of this.#carts.values()) {
      if (cart.checkout?.sessionId === sessionId) {
        this.clear(cart);
        return true;
      }
    }
    return false;
  }
}

export function cartLines(cart: Cart | undefined): CartLine[] {
  if (!cart) return [];
  const lines: CartLine[] = [];
  for (const [id, quantity] of cart.items) {
    const product = findProduct(id);
    if (product) lines.push({ product, quantity, subtotal: product.price * quantity });
  }
  return lines;
}

export function cartTotal(cart: Cart | undefined): number {
  return cartLines(cart).reduce((sum, line) => sum + line.subtotal, 0);
}

export function cartCount(cart: Cart | undefined): number {
  return cartLines(cart).reduce((sum, line) => sum + line.quantity, 0);
}
