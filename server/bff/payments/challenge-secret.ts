import { createHmac } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '../../lib/secrets';

/**
 * The per-challenge secret (DESIGN §3 step 3, issue 12): it is the `MD` the ACS carries back to
 * the TermUrl, and the key that opens the launcher. Only the frame (in the pay answer, or the
 * session view it reads with its client secret) and the ACS round trip ever hold it: it travels
 * in the URL fragment of `challengeUrl` (never sent to a server, so never in an access log) and
 * in form bodies; the BFF stores only its SHA-256. It is an HMAC of the challenge id under a
 * key of the BFF's (never stored), so the BFF can hand it again to a reloaded frame (issue 11:
 * reopen the bank step) without keeping it anywhere.
 */
export interface ChallengeSecret {
  /** Sent to the frame: 40 hex characters. */
  value: string;
  /** What the `challenges.md` column holds. */
  stored: string;
}

export function challengeSecret(key: string, challengeId: string): ChallengeSecret {
  const value = createHmac('sha256', key)
    .update(`card-checkout/challenge/${challengeId}`)
    .digest('hex')
    .slice(0, 40);
  return { value, stored: sha256Hex(value) };
}

/** Whether `given` (an MD or a launcher post) is the secret whose hash is `stored`. */
export function challengeSecretMatches(given: string | undefined, stored: string): boolean {
  if (given === undefined || !/^[0-9a-f]{40}$/.test(given)) return false;
  return constantTimeEqual(sha256Hex(given), stored);
}

/**
 * The launcher URL given to the frame (the pay answer, a reloaded frame's session view, a
 * replayed pay): the secret, derived again from the challenge id, rides in the fragment only.
 */
export function challengeLauncherUrl(
  config: { publicUrl: string; merchantSecret: string },
  challengeId: string,
): string {
  const secret = challengeSecret(config.merchantSecret, challengeId).value;
  return `${config.publicUrl}/checkout/challenge/${challengeId}#${secret}`;
}
