import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the ACS concluded: authenticated, failed (bad OTP, failing card) or canceled. */
export type ParesResult = 'Y' | 'N' | 'C';

/**
 * PaRes: an opaque token `<payload>.<mac>` (base64url) binding the authentication id and the
 * result, signed with HMAC-SHA256. It carries no card data.
 */
export function signPares(secret: Buffer, authId: string, result: ParesResult): string {
  const payload = Buffer.from(JSON.stringify({ a: authId, r: result }), 'utf8').toString(
    'base64url',
  );
  const mac = createHmac('sha256', secret).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

export function verifyPares(
  secret: Buffer,
  pares: string,
): { authId: string; result: ParesResult } | null {
  const [payload, mac, extra] = pares.split('.');
  if (!payload || !mac || extra !== undefined) return null;
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      a?: unknown;
      r?: unknown;
    };
    if (typeof data.a !== 'string' || (data.r !== 'Y' && data.r !== 'N' && data.r !== 'C')) {
      return null;
    }
    return { authId: data.a, result: data.r };
  } catch {
    return null;
  }
}

/** PaReq: base64 of a random reference (nothing else: no card, no amount). */
export function encodePareq(ref: string): string {
  return Buffer.from(`sandbox-pareq:${ref}`, 'utf8').toString('base64');
}

export function decodePareq(pareq: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(pareq) || pareq.length > 200) return null;
  const m = /^sandbox-pareq:([0-9a-f]{32})$/.exec(Buffer.from(pareq, 'base64').toString('utf8'));
  return m ? m[1]! : null;
}
