import { MS } from '../../lib/clock';

/**
 * Delays before each retry (DESIGN §5): the first attempt is immediate, then 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the previous attempt — ten attempts over
 * about three and a half days, so an endpoint down for hours still gets the notification.
 */
export const RETRY_DELAYS_MS = [
  5 * MS.second,
  5 * MS.minute,
  30 * MS.minute,
  2 * MS.hour,
  5 * MS.hour,
  10 * MS.hour,
  14 * MS.hour,
  20 * MS.hour,
  24 * MS.hour,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The state after attempt number `attempts` was answered `statusCode` (null: no answer):
 * 2xx delivered; 400 final (the receiver says the payload is wrong); anything else retried on
 * the schedule until MAX_ATTEMPTS. Webhooks and `urlCallBack` deliveries share it.
 */
export function afterAttempt(
  statusCode: number | null,
  attempts: number,
  nowMs: number,
): { status: 'delivered' | 'failed' | 'pending'; nextMs: number | null } {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    return { status: 'delivered', nextMs: null };
  }
  if (statusCode === 400 || attempts >= MAX_ATTEMPTS) return { status: 'failed', nextMs: null };
  return { status: 'pending', nextMs: nowMs + RETRY_DELAYS_MS[attempts - 1]! };
}
/** The spec advises endpoints to answer within 30 s; we wait that long, then retry. */
export const DELIVERY_TIMEOUT_MS = 30_000;
