import { constants, privateDecrypt } from 'node:crypto';
import { z } from 'zod';
import { MS } from '../../lib/clock';
import { isUniqueViolation } from '../../lib/db';
import { sha256Hex } from '../../lib/secrets';
import type { SandboxContext } from '../context';
import type { PlainCard } from '../payments/card';
import { paymentsState } from '../payments/state';

/** A ciphertext older than this (by its own timestamp, on real time) is refused. */
export const CIPHERTEXT_MAX_AGE_MS = 15 * MS.minute;
/** Tolerated clock skew of a ciphertext from the future. */
export const CIPHERTEXT_MAX_SKEW_MS = 5 * MS.minute;
/** A nonce can only come back while its timestamp is in the window; older ones are purged. */
const NONCE_RETENTION_MS = CIPHERTEXT_MAX_AGE_MS + CIPHERTEXT_MAX_SKEW_MS;

/** DESIGN §3 plaintext: compact JSON of the card, the encryption time and a nonce. */
const PlaintextSchema = z.object({
  number: z.string(),
  securityCode: z.string().optional(),
  expirationMonth: z.string(),
  expirationYear: z.string(),
  timestamp: z.number().int(),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
});

export type OpenResult = { ok: true; card: PlainCard } | { ok: false; description: string };

const TAG = 'cardInfo.encryptedCard';

/**
 * Decrypts `cardInfo.encryptedCard` with the client's private key (RSA-OAEP, SHA-256) and
 * accepts it once: fresh timestamp, unseen nonce. Neither the ciphertext nor the card is ever
 * logged or stored; refusals say why without echoing any of it.
 */
export async function openEncryptedCard(
  ctx: SandboxContext,
  userName: string,
  encryptedCard: string,
): Promise<OpenResult> {
  const fail = (why: string): OpenResult => ({ ok: false, description: `${TAG}: ${why}` });
  const state = paymentsState(ctx);
  let key;
  try {
    key = await state.keys.privateKey(userName);
  } catch {
    return fail('the card key of this client could not be recovered');
  }
  if (!key) return fail('no card key issued to this client yet; call GET /v1/cards/public-key');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encryptedCard)) return fail('must be base64');
  let plaintext: Buffer;
  try {
    plaintext = privateDecrypt(
      { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(encryptedCard, 'base64'),
    );
  } catch {
    return fail("could not be decrypted with this client's public key (RSA-OAEP SHA-256)");
  }
  let json: unknown;
  try {
    json = JSON.parse(plaintext.toString('utf8'));
  } catch {
    return fail('the decrypted data is not JSON');
  }
  const parsed = PlaintextSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.')))].join(', ');
    return fail(`the decrypted data lacks or has bad fields: ${fields}`);
  }
  const p = parsed.data;
  // Security windows run on real time: the browser's clock, not the sandbox's business date.
  const now = ctx.realClock.now().getTime();
  if (p.timestamp < now - CIPHERTEXT_MAX_AGE_MS) {
    return fail('is older than 15 minutes; encrypt the card again');
  }
  if (p.timestamp > now + CIPHERTEXT_MAX_SKEW_MS) {
    return fail('has a timestamp more than 5 minutes in the future');
  }
  await purgeNonces(ctx, now);
  try {
    await ctx.db
      .insertInto('used_nonces')
      .values({
        nonce_hash: sha256Hex(`${userName}\n${p.nonce}`),
        used_at: new Date(now).toISOString(),
      })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) return fail('was already used; encrypt the card again');
    throw err;
  }
  return {
    ok: true,
    card: {
      number: p.number,
      securityCode: p.securityCode,
      expirationMonth: p.expirationMonth,
      expirationYear: p.expirationYear,
    },
  };
}

/** Drops nonces that can no longer be replayed (at most once a minute, real time). */
async function purgeNonces(ctx: SandboxContext, now: number): Promise<void> {
  const state = paymentsState(ctx);
  if (now - state.lastNoncePurgeMs < MS.minute) return;
  state.lastNoncePurgeMs = now;
  await ctx.db
    .deleteFrom('used_nonces')
    .where('used_at', '<', new Date(now - NONCE_RETENTION_MS).toISOString())
    .execute();
}
