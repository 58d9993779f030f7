import { systemClock, type Clock } from '../lib/clock';
import {
  GatewayNetworkError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
  gatewayErrorFrom,
} from './errors';
import { TokenResponseSchema } from './schemas/auth';

/** Which token operation issues the token: the Gateway API's or the Integration API's. */
export type TokenFamily = 'gateway' | 'integration';

/** The token paths of the spec (no version prefix). */
export const TOKEN_PATHS: Record<TokenFamily, string> = {
  gateway: '/api/auth/token',
  integration: '/api/authentication/login',
};

/** One credential set: where to ask for a token and with what. */
export interface TokenCredentials {
  /** Base URL of the API that issues the token (`gatewayBaseUrl` or `integrationBaseUrl`). */
  baseUrl: string;
  family: TokenFamily;
  userName: string;
  password: string;
}

export interface TokenManagerOptions {
  fetch?: typeof fetch;
  clock?: Clock;
  /**
   * How long before expiry a token is replaced. The effective margin is the smaller of this
   * and 20% of the token's lifetime, so a short-lived token is renewed at 80% of its life.
   * Default 60 s.
   */
  refreshBeforeMs?: number;
  /** Timeout of one token request. Default 30 s. */
  timeoutMs?: number;
}

interface CachedToken {
  token: string;
  /** Local-clock instant after which the token must not be used. */
  expiresAt: number;
  /** Local-clock instant from which a new token is fetched. */
  refreshAt: number;
}

interface Slot {
  current?: CachedToken | undefined;
  inflight?: Promise<CachedToken> | undefined;
}

/**
 * One cached access token per credential set (keyed by base URL, token family and user name),
 * shared by every caller of the process.
 *
 * - Refreshed ahead of expiry, in the background while the current token is still valid;
 *   however many callers there are, one token request is in flight.
 * - Expiry is measured on the local clock from the moment the token arrived, using the
 *   lifetime the gateway reports (`expiration − created`), so clock skew between us and the
 *   gateway does not matter.
 * - A refresh that fails while the old token is still valid falls back to the old token.
 * - Tokens and passwords never appear in errors; nothing is logged here.
 *
 * Failures: a refused or malformed token answer → `GatewayUnauthorizedError` (operation
 * `token`); a connection failure or timeout of the token request → `GatewayNetworkError` /
 * `GatewayTimeoutError` with `sent: false` for the caller's own request, which was never sent.
 */
export class TokenManager {
  private readonly slots = new Map<string, Slot>();
  private readonly fetchFn: typeof fetch;
  private readonly clock: Clock;
  private readonly refreshBeforeMs: number;
  private readonly timeoutMs: number;

  constructor(opts: TokenManagerOptions = {}) {
    this.fetchFn = opts.fetch ?? ((...args) => fetch(...args));
    this.clock = opts.clock ?? systemClock;
    this.refreshBeforeMs = opts.refreshBeforeMs ?? 60_000;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /**
   * A valid token for `cred`, from the cache or from one shared token request. Inside the
   * renewal window the current token is served at once while the renewal runs in the
   * background (a slow or hanging token operation holds no call); only a caller without a
   * valid token waits for it.
   */
  async getToken(cred: TokenCredentials): Promise<string> {
    const slot = this.slot(cred);
    const now = this.clock.now().getTime();
    const cur = slot.current;
    if (cur && now < cur.refreshAt) return cur.token;
    if (cur && now < cur.expiresAt) {
      // A failed renewal keeps the old token; the next caller in the window tries again.
      this.flight(cred, slot).catch(() => undefined);
      return cur.token;
    }
    return (await this.flight(cred, slot)).token;
  }

  /**
   * Called after a `401` with the token that was refused: drops it and fetches a new one
   * (shared with concurrent callers). When another caller already replaced it, the newer
   * token is returned without a request.
   */
  async refreshAfterRejection(cred: TokenCredentials, rejected: string): Promise<string> {
    const slot = this.slot(cred);
    if (slot.current && slot.current.token !== rejected) {
      if (this.clock.now().getTime() < slot.current.refreshAt) return slot.current.token;
    }
    if (slot.current?.token === rejected) slot.current = undefined;
    return (await this.flight(cred, slot)).token;
  }

  /** Forgets every cached token (e.g. after credentials were rotated). */
  clear(): void {
    this.slots.clear();
  }

  private slot(cred: TokenCredentials): Slot {
    const key = `${cred.baseUrl.replace(/\/+$/, '')}\n${cred.family}\n${cred.userName}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = {};
      this.slots.set(key, slot);
    }
    return slot;
  }

  private flight(cred: TokenCredentials, slot: Slot): Promise<CachedToken> {
    if (slot.inflight) return slot.inflight;
    const p = this.request(cred).then(
      (t) => {
        slot.current = t;
        slot.inflight = undefined;
        return t;
      },
      (err: unknown) => {
        slot.inflight = undefined;
        throw err;
      },
    );
    slot.inflight = p;
    return p;
  }

  private async request(cred: TokenCredentials): Promise<CachedToken> {
    const operation = 'token';
    const url = cred.baseUrl.replace(/\/+$/, '') + TOKEN_PATHS[cred.family];
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), this.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ userName: cred.userName, password: cred.password }),
        signal: ac.signal,
      });
      text = await res.text();
    } catch (err) {
      if (ac.signal.aborted) {
        throw new GatewayTimeoutError({
          status: 0,
          operation,
          sent: false,
          timeoutMs: this.timeoutMs,
        });
      }
      throw new GatewayNetworkError({
        status: 0,
        operation,
        sent: false,
        message: `${operation}: could not reach ${new URL(url).origin} (${causeCode(err)})`,
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the text */
    }
    if (res.status < 200 || res.status > 299) {
      const e = gatewayErrorFrom(res.status, body, operation);
      throw e instanceof GatewayUnauthorizedError
        ? e
        : new GatewayUnauthorizedError({
            status: res.status,
            items: e.items,
            operation,
            message: `${operation}: no token (${e.message})`,
          });
    }
    const parsed = TokenResponseSchema.safeParse(body);
    if (!parsed.success || !parsed.data.authenticated || !parsed.data.accessToken) {
      throw new GatewayUnauthorizedError({
        status: res.status,
        operation,
        message: `${operation}: the token answer is not an authenticated access token`,
      });
    }
    const created = Date.parse(parsed.data.created ?? '');
    const expiration = Date.parse(parsed.data.expiration ?? '');
    // Without usable dates assume a short life so we ask again soon (the spec says "not shown").
    const lifetime =
      Number.isFinite(created) && Number.isFinite(expiration) && expiration > created
        ? expiration - created
        : 5 * 60_000;
    const now = this.clock.now().getTime();
    const margin = Math.min(this.refreshBeforeMs, lifetime * 0.2);
    return {
      token: parsed.data.accessToken,
      expiresAt: now + lifetime,
      refreshAt: now + lifetime - margin,
    };
  }
}

/** A short, secret-free name for a low-level failure (`ECONNREFUSED`, `ENOTFOUND`…). */
export function causeCode(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.name : 'unknown error';
}
