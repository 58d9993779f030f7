/**
 * The frame's first script: the BFF inlines it into the frame page (under a CSP hash), so it
 * runs while the page is parsed, before the frame bundle has even arrived from the cache. It
 * says hello to the host, takes the `init` (the client secret comes only this way) and starts
 * the session and card-key reads at once; the bundle's `<card-form>` takes them over with
 * `cardFormBoot.onStart`. Built on its own (vite.config.ts) as a classic script.
 *
 * Measured (test/bench/checkout-ready.ts, traces): the reads used to start only after the
 * bundle was fetched and evaluated and the form had drawn its fields, ≈ 20–25 ms after the page
 * was parsed; the BFF now answers them while the bundle loads.
 */
import type { PublicSession } from '../../contract/checkout';
import type { ApiResult, CheckoutApi } from './api';
import { createCheckoutApi } from './api';
import type { HostConnection } from './connection';
import { connectToHost } from './connection';
// Imported last: in this order the built boot gzips 13 B smaller.
import { sessionIdFromSecret } from '../protocol/constants';

/** The host's `init` with its port, and the reads started as it arrived. */
export interface FrameStart extends HostConnection {
  api: CheckoutApi;
  session: Promise<ApiResult<PublicSession>>;
  publicKey: Promise<ApiResult<{ key: string }>>;
}

export interface FrameBoot {
  /** An API client for another client secret (a renewed session); null when it is not one. */
  createApi(clientSecret: string): CheckoutApi | null;
  /** Calls `cb` once with the start: at once when the host has answered already. */
  onStart(cb: (start: FrameStart) => void): void;
}

declare global {
  interface Window {
    cardFormBoot?: FrameBoot;
  }
}

function meta(name: string): string | null {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content || null;
}

let start: FrameStart | null = null;
let waiting: ((start: FrameStart) => void) | null = null;

connectToHost(meta('checkout-session') ?? '', meta('checkout-origin'), (connection) => {
  const api = createCheckoutApi(connection.init.clientSecret);
  // The session first: the BFF answers in arrival order, and only the session gates
  // `checkout-ready` (the key is needed for a payment).
  const session = api.session();
  start = { ...connection, api, session, publicKey: api.publicKey() };
  waiting?.(start);
  waiting = null;
});

window.cardFormBoot = {
  createApi: (secret) => (sessionIdFromSecret(secret) ? createCheckoutApi(secret) : null),
  onStart(cb) {
    if (start) cb(start);
    else waiting = cb;
  },
};
