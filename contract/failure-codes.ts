// No imports: the widget bundles this list too (the frame and host check a `failed` message
// against it), so it must not pull anything of the server in.

/**
 * Why a payment did not go through, as the shopper may be told. Never a raw authorizer code
 * or a fraud signal: the widget maps each code to a message.
 */
export const FAILURE_CODES = [
  'declined',
  'insufficient_funds',
  'expired_card',
  'invalid_card',
  'three_ds_failed',
  'challenge_canceled',
  'challenge_timeout',
  'try_again_later',
  'session_expired',
  'attempts_exhausted',
  'already_paid',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];
