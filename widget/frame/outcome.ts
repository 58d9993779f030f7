/**
 * What the frame may tell the shopper, decided from the BFF's answers alone (issue 9 §4): a
 * payment is reported failed only when it certainly did not happen; a lost answer, a timeout,
 * a 5xx or a 409 sends the frame to read the session again instead. Pure, tested without a DOM.
 */
import type {
  FailureCode,
  PayResult,
  PendingChallenge,
  PublicSession,
} from '../../contract/checkout';
import { FAILURE_CODES } from '../../contract/failure-codes';
import type { ApiResult } from './api';
import { asPayResult } from './api';

/** A failure code the frame has words for (a newer BFF may name one this frame does not). */
const named = (code: unknown): code is FailureCode =>
  (FAILURE_CODES as readonly unknown[]).includes(code);

export type Settled = Extract<PayResult, { status: 'succeeded' | 'challenge' | 'failed' }>;

/** What to do with the answer to a pay or complete call. */
export type StepVerdict =
  /** The BFF's word: succeeded, a challenge, or a failure it vouches for. */
  | { kind: 'result'; result: Settled }
  /** The outcome is not known here: read the session until it is. */
  | { kind: 'confirm' }
  /** The session is gone (unknown, expired secret). */
  | { kind: 'expired' }
  /** Refused before anything was charged (a 4xx that is not a conflict). */
  | { kind: 'refused' };

/** The session is gone for this client secret (ended long ago, or never was). */
export const gone = (status: number): boolean => status === 401 || status === 404 || status === 410;

export function stepVerdict(res: ApiResult<PayResult>): StepVerdict {
  const result = asPayResult(res.ok ? res.data : res.body);
  if (result?.status === 'pending') return { kind: 'confirm' };
  // "Already paid" is a reason to go and read the receipt, never a failure to show; a failure
  // the frame cannot name is read from the session too, never shown as a blank.
  if (
    result?.status === 'failed' &&
    (result.error.code === 'already_paid' || !named(result.error.code))
  ) {
    return { kind: 'confirm' };
  }
  if (result) return { kind: 'result', result };
  if (res.ok) return { kind: 'confirm' };
  const { status } = res;
  if (gone(status)) return { kind: 'expired' };
  if (status === 0 || status === 408 || status === 409 || status >= 500) {
    return { kind: 'confirm' };
  }
  return { kind: 'refused' };
}

/** What a session read says about the payment. */
export type SessionVerdict =
  | { kind: 'succeeded'; result: Extract<PayResult, { status: 'succeeded' }> }
  /** `pending` or `processing`: the BFF does not know yet. */
  | { kind: 'unknown' }
  | { kind: 'challenge'; challenge: PendingChallenge }
  /** Nothing was charged; the session takes a payment. */
  | { kind: 'open' }
  | { kind: 'ended'; code: FailureCode };

export function sessionVerdict(s: PublicSession): SessionVerdict {
  switch (s.status) {
    case 'succeeded':
      return s.outcome?.status === 'succeeded'
        ? { kind: 'succeeded', result: s.outcome }
        : { kind: 'unknown' };
    case 'open':
      return { kind: 'open' };
    case 'challenge':
      return s.challenge ? { kind: 'challenge', challenge: s.challenge } : { kind: 'unknown' };
    case 'expired':
      return { kind: 'ended', code: 'session_expired' };
    case 'failed':
      return {
        kind: 'ended',
        code:
          s.outcome?.status === 'failed' && named(s.outcome.error.code)
            ? s.outcome.error.code
            : s.attemptsLeft > 0
              ? 'try_again_later'
              : 'attempts_exhausted',
      };
    default:
      return { kind: 'unknown' };
  }
}

/** The BFF's gateway timeout (GATEWAY_TIMEOUT_MS default): the first, quick reading window. */
export const CONFIRM_WINDOW_MS = 30_000;

/**
 * A resend answered 409 on its Idempotency-Key: the first request with that key is still
 * running at the BFF (a kept 409 of a finished pay names the session, not the key).
 */
export function firstStillRuns(res: ApiResult<unknown>): boolean {
  return (
    !res.ok &&
    res.status === 409 &&
    Array.isArray(res.body) &&
    res.body.some((i) => (i as { tag?: unknown } | null)?.tag === 'Idempotency-Key')
  );
}

/** What a pay whose answer was lost has been told since (`PaymentController`'s `#sent`). */
export interface ResendState {
  /** Resends answered without a word on the first (lost, 5xx). */
  again: number;
  /** Resends answered that the first still runs (`firstStillRuns`); any means it was alive. */
  running: number;
  /** When it was first sent (the BFF's clock, ms: the device's may step meanwhile). */
  at: number;
}

/** Resends of a lost pay answered without a word on it, before the shopper may try again. */
export const MAX_RESENDS = 3;

/**
 * A pay said to be running is sent again for this long after it was first sent. No handler
 * runs this long: a key still "being processed" then was left by a BFF that stopped, and the
 * session open means nothing was charged. The BFF takes such a key over after 15 minutes
 * (`IDEMPOTENCY_STALE_MS`) and would run the kept body, its card ciphertext by then too old
 * for the gateway (an attempt lost to "check the card"): the frame stops before.
 */
export const RESEND_WINDOW_MS = 14 * 60_000;

/**
 * After a lost answer the session reads open: send the pay again under its key (`resend`), or
 * let the shopper try again (`fail`). A pay the BFF said was still running may claim the
 * session and charge at any moment, or have ended (declined, the session open again) with its
 * answer kept under the key: it is sent again, backing off (`confirmDelay` from when it was
 * first sent), until the BFF answers it. Any lost step is sent again within `RESEND_WINDOW_MS`
 * only: past it, the session open, it certainly did not run, and the shopper may try again.
 */
export function afterOpenRead(sent: ResendState, now: number): 'resend' | 'fail' {
  return now - sent.at < RESEND_WINDOW_MS && (sent.running > 0 || sent.again < MAX_RESENDS)
    ? 'resend'
    : 'fail';
}

/**
 * Delay before the next session read: 0.5 s doubling to 4 s within the window, then every
 * 15 s for as long as the outcome stays unknown.
 */
export function confirmDelay(round: number, elapsedMs: number): number {
  return elapsedMs < CONFIRM_WINDOW_MS ? Math.min(500 * 2 ** round, 4000) : 15_000;
}
