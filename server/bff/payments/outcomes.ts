import type { FailureCode } from '../checkout-api';

export interface DeclinedIds {
  paymentId: string;
  authorizationCode: string | null;
  nsu: string | null;
}

/** What a failed gateway call means for the session, independent of the error class. */
export type GatewayFailure =
  /** An answered authorization with a decline code (and its ids, when the answer had them). */
  | { kind: 'declined'; returnCode: string; ids?: DeclinedIds }
  /** `400 [{tag: "3DS Fail"}]`: authentication failed. */
  | { kind: 'three_ds_failed' }
  /** A `400`/`422`: the gateway refused the request itself (bad or stale ciphertext, …). */
  | { kind: 'rejected' }
  /**
   * A refused connection, a token problem, a timeout before the request left, or a 4xx that
   * refuses the call rather than judge it (`403`, `404`, `429`, …: see `NOT_PROCESSED_4XX`).
   */
  | { kind: 'unavailable' }
  /**
   * A timeout, a 5xx, a broken answer or (money calls) an unexplained 4xx such as `408` or
   * `409` after the request left: the outcome is unknown.
   */
  | { kind: 'unknown' };

/**
 * The 4xx statuses that judge the request (and so the card data in it). The spec documents
 * `400` ("request or 3DS validation error") as the payment operations' only 4xx besides `401`;
 * `422` is the common spelling of the same refusal.
 */
const REQUEST_REFUSALS = new Set([400, 422]);

/**
 * 4xx statuses refused before anything is processed: access (`401`, `403`: an IP allowlist, `407`), route
 * (`404`, `405`, `410`, `421`), request format or size (`406`, `411`, `413`, `414`, `415`, `431`)
 * and rate limits (`429`). For a money call every other 4xx (`408`, `409`, unknown ones) may
 * come after the gateway processed it: its outcome is unknown.
 */
const NOT_PROCESSED_4XX = new Set([
  401, 403, 404, 405, 406, 407, 410, 411, 413, 414, 415, 421, 429, 431,
]);

/**
 * Shopper-facing code of an authorizer decline. The raw code never leaves the BFF (it can be a
 * fraud signal); `N7` and `14` both mean the card data is wrong.
 */
export function declineFailureCode(returnCode: string): FailureCode {
  switch (returnCode) {
    case '51':
      return 'insufficient_funds';
    case '54':
      return 'expired_card';
    case 'N7':
    case '14':
      return 'invalid_card';
    default:
      return 'declined';
  }
}

export function failureCodeOf(f: GatewayFailure): FailureCode {
  switch (f.kind) {
    case 'declined':
      return declineFailureCode(f.returnCode);
    case 'three_ds_failed':
      return 'three_ds_failed';
    case 'rejected':
      return 'invalid_card';
    case 'unavailable':
    case 'unknown':
      return 'try_again_later';
  }
}

/**
 * Whether a failure counts toward the session's attempt cap: the shopper's card was judged.
 * An outage does not burn one of the shopper's tries.
 */
export function countsAsAttempt(f: GatewayFailure): boolean {
  return f.kind === 'declined' || f.kind === 'three_ds_failed' || f.kind === 'rejected';
}

interface ErrorLike {
  name?: unknown;
  status?: unknown;
  returnCode?: unknown;
  sent?: unknown;
  items?: unknown;
}

function className(err: object): string {
  const ctor = (err as { constructor?: { name?: unknown } }).constructor;
  const byCtor = typeof ctor?.name === 'string' ? ctor.name : '';
  const byName = typeof (err as ErrorLike).name === 'string' ? String((err as ErrorLike).name) : '';
  return byCtor.startsWith('Gateway') ? byCtor : byName;
}

/**
 * Reads a gateway client error (server/gateway/errors.ts) into a `GatewayFailure`. Judged by
 * class name and the documented fields, so it does not break when the error family grows.
 * Resolves `null` for anything that is not a gateway error (a bug: let it throw).
 */
export function classifyGatewayError(err: unknown): GatewayFailure | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as ErrorLike;
  switch (className(err)) {
    case 'GatewayDeclinedError': {
      const ids = declinedIds((err as { response?: unknown }).response);
      return { kind: 'declined', returnCode: String(e.returnCode ?? ''), ...(ids ? { ids } : {}) };
    }
    case 'GatewayThreeDsError':
      return { kind: 'three_ds_failed' };
    case 'GatewayTimeoutError':
      return e.sent === false ? { kind: 'unavailable' } : { kind: 'unknown' };
    case 'GatewayNetworkError':
      return e.sent === true ? { kind: 'unknown' } : { kind: 'unavailable' };
    case 'GatewayProtocolError':
      // A 2xx we cannot read: the gateway may have processed it.
      return { kind: 'unknown' };
    case 'GatewayInternalError':
    case 'GatewayUnauthorizedError':
      return { kind: 'unavailable' };
    case 'GatewayValidationError':
    case 'GatewayError': {
      const status = statusOf(e);
      if (isThreeDsFail(e.items)) return { kind: 'three_ds_failed' };
      if (!isClientError(status)) {
        // Validation without a 4xx: refused before sending (status 0) or inside a 2xx.
        return className(err) === 'GatewayValidationError'
          ? { kind: 'rejected' }
          : { kind: 'unavailable' };
      }
      return REQUEST_REFUSALS.has(status) ? { kind: 'rejected' } : { kind: 'unavailable' };
    }
    default:
      return null;
  }
}

function statusOf(e: ErrorLike): number {
  return typeof e.status === 'number' ? e.status : 0;
}

function isClientError(status: number): boolean {
  return status >= 400 && status < 500;
}

/**
 * `classifyGatewayError` for a call that moves money (pay, validate, subscribe): a 5xx came
 * after the request reached the gateway, which may have charged before failing, so it is
 * `unknown`, never `unavailable` (a token 5xx is a `GatewayUnauthorizedError`: not sent); so
 * is a 4xx that is neither a refusal of the request nor one of `NOT_PROCESSED_4XX` (a `408`,
 * a `409`: the gateway may have processed it).
 */
export function classifyMoneyCallError(err: unknown): GatewayFailure | null {
  const f = classifyGatewayError(err);
  if (f?.kind !== 'unavailable') return f;
  if (className(err as object) === 'GatewayUnauthorizedError') return f;
  const status = statusOf(err as ErrorLike);
  if (status >= 500) return { kind: 'unknown' };
  return isClientError(status) && !NOT_PROCESSED_4XX.has(status) ? { kind: 'unknown' } : f;
}

/**
 * A gateway `404`: for a lookup by id (a plan, a subscription) "no such resource". Read by
 * the callers that look one up; a `404` is no judgment of a card (`unavailable` above).
 */
export function answeredNotFound(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    className(err).startsWith('Gateway') &&
    statusOf(err as ErrorLike) === 404
  );
}

/**
 * A 4xx refusing `cardInfo.encryptedCard`: a ciphertext that does not decrypt, e.g. made with
 * a key the gateway has since rotated. The BFF then drops its cached public key.
 */
export function refusesCiphertext(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !className(err).startsWith('Gateway')) {
    return false;
  }
  const e = err as ErrorLike;
  return (
    isClientError(statusOf(e)) &&
    Array.isArray(e.items) &&
    e.items.some(
      (i) =>
        typeof i === 'object' &&
        i !== null &&
        (i as { tag?: unknown }).tag === 'cardInfo.encryptedCard',
    )
  );
}

function isThreeDsFail(items: unknown): boolean {
  return (
    Array.isArray(items) &&
    items.some(
      (i) => typeof i === 'object' && i !== null && (i as { tag?: unknown }).tag === '3DS Fail',
    )
  );
}

function declinedIds(response: unknown): DeclinedIds | undefined {
  const auth = (response as { paymentAuthorization?: Record<string, unknown> } | null)
    ?.paymentAuthorization;
  if (!auth || typeof auth.paymentId !== 'string' || !auth.paymentId) return undefined;
  return {
    paymentId: auth.paymentId,
    authorizationCode: typeof auth.authorizationCode === 'string' ? auth.authorizationCode : null,
    nsu: typeof auth.nsu === 'string' ? auth.nsu : null,
  };
}
