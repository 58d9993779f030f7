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
  /** Another 4xx: the gateway refused the request (bad or stale ciphertext, …). */
  | { kind: 'rejected' }
  /** A refused connection, a token problem, or a timeout before the request left. */
  | { kind: 'unavailable' }
  /** A timeout, a 5xx or a broken answer after the request left: the outcome is unknown. */
  | { kind: 'unknown' };

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
      return isThreeDsFail(e.items) ? { kind: 'three_ds_failed' } : { kind: 'rejected' };
    case 'GatewayError': {
      const status = typeof e.status === 'number' ? e.status : 0;
      if (isThreeDsFail(e.items)) return { kind: 'three_ds_failed' };
      return status >= 400 && status < 500 && status !== 401
        ? { kind: 'rejected' }
        : { kind: 'unavailable' };
    }
    default:
      return null;
  }
}

/**
 * `classifyGatewayError` for a call that moves money (pay, validate, subscribe): a 5xx came
 * after the request reached the gateway, which may have charged before failing, so it is
 * `unknown`, never `unavailable` (a token 5xx is a `GatewayUnauthorizedError`: not sent).
 */
export function classifyMoneyCallError(err: unknown): GatewayFailure | null {
  const f = classifyGatewayError(err);
  if (f?.kind !== 'unavailable') return f;
  const status = (err as ErrorLike).status;
  return className(err as object) !== 'GatewayUnauthorizedError' &&
    typeof status === 'number' &&
    status >= 500
    ? { kind: 'unknown' }
    : f;
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
