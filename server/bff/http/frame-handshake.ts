import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../lib/secrets';

/**
 * The Accept header of the frame page is 3DS device data the BFF adds (JavaScript cannot read
 * it). `GET /checkout/frame` needs no secret, so it must not write it: it only seals the value
 * into the page (`<meta name="checkout-handshake">`), bound to the session by an HMAC. The
 * frame sends the seal back with its client secret (`Checkout-Handshake` header), and only then
 * is it stored: only a frame page of the session's own, or of a session of the same merchant
 * page (the frame goes on with a renewed session), can set it.
 */
export const HANDSHAKE_HEADER = 'checkout-handshake';

const MAX_ACCEPT = 255;

export function handshakeKey(merchantSecret: string): Buffer {
  return createHmac('sha256', merchantSecret).update('bff frame handshake v1').digest();
}

function mac(key: Buffer, sessionId: string, accept: string): string {
  return createHmac('sha256', key).update(`${sessionId}\n${accept}`).digest('base64url');
}

/**
 * The seal of the frame page's Accept header for one session: the value, the session it was
 * made for and their MAC.
 */
export function sealAccept(key: Buffer, sessionId: string, accept: string): string {
  const value = accept.slice(0, MAX_ACCEPT);
  return `${Buffer.from(value, 'utf8').toString('base64url')}.${sessionId}.${mac(key, sessionId, value)}`;
}

/**
 * The Accept header a seal vouches for and the session it was made for, or undefined for
 * anything forged. The caller decides whether that session's page may speak for its own: the
 * frame keeps its page (and seal) when the merchant renews an expired session in place.
 */
export function openAccept(
  key: Buffer,
  seal: string,
  /** For a seal of the earlier form (value and MAC only), made for the session it comes with. */
  sessionId?: string,
): { accept: string; sessionId: string } | undefined {
  const m =
    /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(seal) ??
    (sessionId ? /^([A-Za-z0-9_-]{1,400})\.()([A-Za-z0-9_-]{43})$/.exec(seal) : null);
  if (!m) return undefined;
  const sealedFor = m[2] || sessionId!;
  const accept = Buffer.from(m[1]!, 'base64url').toString('utf8');
  if (accept.length > MAX_ACCEPT) return undefined;
  return constantTimeEqual(m[3]!, mac(key, sealedFor, accept))
    ? { accept, sessionId: sealedFor }
    : undefined;
}
