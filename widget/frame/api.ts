/**
 * The frame's client of the BFF checkout API (same origin). Every call carries the client
 * secret as a Bearer token, never in a URL. Expected failures come back as values.
 */
import type {
  ChallengeCancelBody,
  ChallengeCompleteBody,
  PayBody,
  PayResult,
  PublicSession,
} from '../../contract/checkout';

/** Longer than the BFF's gateway timeout (30 s), so a slow gateway answer still arrives. */
const STEP_TIMEOUT_MS = 45_000;
const READ_TIMEOUT_MS = 15_000;

/** `status: 0`: no answer (network error or timeout): the request may or may not have landed. */
export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; body: unknown };

export interface CheckoutApi {
  session(): Promise<ApiResult<PublicSession>>;
  publicKey(): Promise<ApiResult<{ key: string }>>;
  pay(body: PayBody, idempotencyKey: string): Promise<ApiResult<PayResult>>;
  completeChallenge(
    body: ChallengeCompleteBody,
    idempotencyKey: string,
  ): Promise<ApiResult<PayResult>>;
  cancelChallenge(body: ChallengeCancelBody): Promise<ApiResult<PayResult>>;
  /**
   * The BFF's time (ms), from the `Date` of its last answer: the card's timestamp and the
   * session's expiry are the gateway's and the BFF's, not a device clock that may be off.
   */
  now(): number;
}

/** Device clocks within this of the BFF's are taken as they are (`Date` has whole seconds). */
const CLOCK_SLACK_MS = 2_000;

/**
 * The frame page's sealed Accept header (`<meta name="checkout-handshake">`): sent back with
 * the client secret so the BFF stores it as 3DS device data (only this frame can set it).
 */
function pageHandshake(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  const meta = document.querySelector<HTMLMetaElement>('meta[name="checkout-handshake"]');
  return meta?.content || undefined;
}

export function createCheckoutApi(
  clientSecret: string,
  base = '/checkout/api',
  fetchFn: typeof fetch = (...args) => fetch(...args),
  handshake: string | undefined = pageHandshake(),
): CheckoutApi {
  let offset = 0;
  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<ApiResult<T>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${clientSecret}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (handshake) headers['checkout-handshake'] = handshake;
    let res: Response;
    try {
      res = await fetchFn(`${base}${path}`, {
        method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        signal: AbortSignal.timeout(method === 'POST' ? STEP_TIMEOUT_MS : READ_TIMEOUT_MS),
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch {
      return { ok: false, status: 0, body: null };
    }
    const skew = Date.parse(res.headers.get('date') ?? '') - Date.now();
    if (Number.isFinite(skew)) offset = Math.abs(skew) > CLOCK_SLACK_MS ? skew : 0;
    let json: unknown = null;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    // A 2xx whose body is cut off or is not the BFF's JSON (a portal, a proxy page) tells
    // nothing: read as no answer, never as data the flow would trip over.
    if (res.ok && (typeof json !== 'object' || json === null)) {
      return { ok: false, status: 0, body: null };
    }
    return res.ok ? { ok: true, data: json as T } : { ok: false, status: res.status, body: json };
  }

  return {
    session: () => call('GET', '/session'),
    publicKey: () => call('GET', '/public-key'),
    pay: (body, key) => call('POST', '/pay', body, key),
    completeChallenge: (body, key) => call('POST', '/challenge/complete', body, key),
    cancelChallenge: (body) => call('POST', '/challenge/cancel', body),
    now: () => Date.now() + offset,
  };
}

/** A BFF answer that is a PayResult, whatever the HTTP status it came with. */
export function asPayResult(v: unknown): PayResult | null {
  const r = (typeof v === 'object' && v) as Record<string, unknown> | false;
  const isObj = (x: unknown) => typeof x === 'object' && x !== null;
  const ok =
    r &&
    (r.status === 'pending' ||
      (r.status === 'succeeded' && isObj(r.payment)) ||
      (r.status === 'failed' && isObj(r.error)) ||
      (r.status === 'challenge' &&
        typeof r.challengeId === 'string' &&
        typeof r.challengeUrl === 'string'));
  return ok ? (v as PayResult) : null;
}
