import type { Logger } from 'pino';
import { prefixedId } from '../../lib/ids';
import { challengeLauncherUrl, challengeSecret, challengeSecretMatches } from './challenge-secret';
import type {
  ChallengeCancelBody,
  ChallengeCompleteBody,
  ChallengeWindowSize,
  FailureCode,
  PayBody,
  PayResult,
} from '../checkout-api';
import type { BffContext } from '../context';
import {
  endAttemptAsFailure,
  refreshSession,
  sessionOutcome,
  settledMeanwhile,
} from '../sessions/service';
import {
  findChallenge,
  findSession,
  insertChallenge,
  storePares,
  transitionChallenge,
  updateAttempt,
  updateAttemptInFlight,
  type ChallengeRow,
  type SessionRow,
} from '../sessions/store';
import type { GatewayFailure } from './outcomes';
import { cardInfoOf, refuse, THREE_DS_PENDING, type StepAnswer } from './pay-common';
import { settle, settleAuthorization, settleError, SETTLES_FROM } from './settlement';
import { transitionSession } from '../sessions/transition';
import { atomically } from '../atomic';

/** The 3-D Secure challenge of a debit attempt: opened by pay, completed or canceled here. */

/** The session moved on while its attempt's call ran: the challenge is not opened. */
class NotOpened extends Error {}

export async function openChallenge(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  body: PayBody,
  g: { acsUrl: string; pareq: string; authenticationTransactionId: string; code3ds: string },
): Promise<PayResult> {
  const now = ctx.clock.now();
  const challengeId = prefixedId('ch', 16);
  const secret = challengeSecret(ctx.config.merchantSecret, challengeId);
  const windowSize: ChallengeWindowSize = body.challengeWindowSize ?? '03';
  // The challenge, its attempt and its session move together: a session left `processing`
  // or `pending` with its attempt in `challenge` would be seen by no one again. The session
  // may have been judged stranded while the call ran (`pending`, SETTLES_FROM): the gateway's
  // answer stands. An attempt settled meanwhile keeps its outcome, and no challenge opens.
  const opened = await atomically(ctx, async (tx) => {
    const moved = await updateAttemptInFlight(tx.db, attemptId, {
      status: 'challenge',
      updated_at: now.toISOString(),
    });
    if (!moved) return false;
    // The attempt's move is undone with the transaction.
    if (!(await transitionSession(tx, row.id, SETTLES_FROM, 'challenge', now))) {
      throw new NotOpened();
    }
    await insertChallenge(tx.db, {
      id: challengeId,
      session_id: row.id,
      attempt_id: attemptId,
      md: secret.stored,
      acs_url: g.acsUrl,
      pareq: g.pareq,
      authentication_transaction_id: g.authenticationTransactionId,
      code_3ds: g.code3ds,
      fingerprint: body.fingerprint,
      cardholder_name: body.cardholderName,
      brand: body.brand ?? null,
      installments: 1,
      window_size: windowSize,
      status: 'pending',
      pares: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ctx.config.challengeTtlMs).toISOString(),
      answered_at: null,
    });
    return true;
  }).catch((err: unknown) => {
    if (err instanceof NotOpened) return false;
    throw err;
  });
  if (!opened) return settledMeanwhile(ctx, row.id, attemptId);
  return {
    status: 'challenge',
    challengeId,
    challengeUrl: challengeLauncherUrl(ctx.config, challengeId),
    windowSize,
  };
}

/** A challenge of this session (another session's challenge reads as unknown). */
async function challengeOf(
  ctx: BffContext,
  row: SessionRow,
  challengeId: string,
): Promise<ChallengeRow | undefined> {
  const ch = await findChallenge(ctx.db, challengeId);
  return ch && ch.session_id === row.id ? ch : undefined;
}

/** `POST /checkout/api/challenge/complete`: the validate call with a fresh ciphertext. */
export async function completeChallenge(
  ctx: BffContext,
  sessionRow: SessionRow,
  body: ChallengeCompleteBody,
  log: Logger,
): Promise<StepAnswer> {
  const ch = await challengeOf(ctx, sessionRow, body.challengeId);
  if (!ch) return refuse(404, 'challengeId', 'challengeId: no such challenge in this session');
  const row = await refreshSession(ctx, sessionRow);
  const fresh = (await findChallenge(ctx.db, ch.id)) ?? ch;
  if (fresh.status === 'expired') {
    const outcome = await sessionOutcome(ctx, row);
    return {
      ok: true,
      result: outcome ?? {
        status: 'failed',
        error: { code: 'challenge_timeout', retryable: true },
        attemptsLeft: Math.max(0, ctx.config.maxAttempts - row.attempts_used),
      },
    };
  }
  if (fresh.status === 'pending') {
    return refuse(409, 'challengeId', 'challengeId: the challenge has not been answered yet');
  }
  if (fresh.status !== 'answered' || !fresh.pares) {
    return refuse(409, 'challengeId', 'challengeId: the challenge has already ended');
  }
  const pares = fresh.pares;
  const now = ctx.clock.now();
  // One transaction: the challenge used, the session paying and its attempt unknown, or none
  // of it (a session left `challenge` beside a used challenge, or `processing` beside an
  // attempt that is not unknown, would be seen by no one again). A session that no longer
  // waits for the challenge leaves it ended all the same: its PaRes is not kept.
  const claimed = await atomically(ctx, async (tx) => {
    if (!(await transitionChallenge(tx.db, ch.id, ['answered'], 'completed'))) {
      return refuse(409, 'challengeId', 'challengeId: the challenge has already ended');
    }
    if (!(await transitionSession(tx, row.id, 'challenge', 'processing', now))) {
      return refuse(409, 'session', 'session: not waiting for a challenge');
    }
    // Unknown until the gateway answers: a crash during validate leaves the truth visible,
    // and the resolver finds the attempt once it is older than the gateway timeout.
    await updateAttempt(tx.db, ch.attempt_id, {
      status: 'unknown',
      updated_at: now.toISOString(),
    });
    return null;
  });
  if (claimed) return claimed;
  const attemptLog = log.child({ sessionId: row.id, attemptId: ch.attempt_id, method: 'debit' });
  try {
    const res = await ctx.gateway.validate3ds(
      {
        authenticationTransactionId: ch.authentication_transaction_id,
        pares,
        cardInfo: cardInfoOf(body.encryptedCard, ch.cardholder_name, ch.brand),
        payment: {
          transactionType: 'debit',
          amount: row.amount,
          productType: 'debito',
          installments: ch.installments,
        },
        sellerInfo: { codeAntiFraud: ch.fingerprint, code3DS: ch.code_3ds, urlSite3DS: row.origin },
      },
      { idempotencyKey: `${ch.attempt_id}-validate` },
    );
    if (!res.paymentAuthorization || res.threeDs.status === THREE_DS_PENDING) {
      // Authentication failed or never finished: no charge. Anything else with no
      // authorization is a 2xx that does not say what happened: it may have charged.
      const failure: GatewayFailure =
        res.threeDs.status === 'AUTHENTICATION_FAILED' || res.threeDs.status === THREE_DS_PENDING
          ? { kind: 'three_ds_failed' }
          : { kind: 'unknown' };
      return {
        ok: true,
        result: await settle(ctx, row, ch.attempt_id, failure, attemptLog),
      };
    }
    return {
      ok: true,
      result: await settleAuthorization(
        ctx,
        row,
        ch.attempt_id,
        res.paymentAuthorization,
        attemptLog,
      ),
    };
  } catch (err) {
    return {
      ok: true,
      result: await settleError(ctx, row, ch.attempt_id, err, attemptLog),
    };
  }
}

/** `POST /checkout/api/challenge/cancel`: the shopper closed the dialog, or it timed out. */
export async function cancelChallenge(
  ctx: BffContext,
  sessionRow: SessionRow,
  body: ChallengeCancelBody,
): Promise<StepAnswer> {
  const ch = await challengeOf(ctx, sessionRow, body.challengeId);
  if (!ch) return refuse(404, 'challengeId', 'challengeId: no such challenge in this session');
  const timedOut =
    body.reason === 'timeout' || ctx.clock.now().getTime() >= Date.parse(ch.expires_at);
  const to = timedOut ? 'expired' : 'canceled';
  const code: FailureCode = timedOut ? 'challenge_timeout' : 'challenge_canceled';
  // The challenge, its attempt and its session end together, or not at all.
  const ended = await atomically(ctx, async (tx) => {
    if (!(await transitionChallenge(tx.db, ch.id, ['pending', 'answered'], to))) return null;
    const row = (await findSession(tx.db, sessionRow.id)) ?? sessionRow;
    // A shopper who closes the dialog has not had the card judged: no attempt used. A decline
    // (a failed challenge) and a timeout still count.
    return endAttemptAsFailure(tx, row, ch.attempt_id, code, timedOut, 'challenge');
  });
  if (ended) return { ok: true, result: ended };
  const row = (await findSession(ctx.db, sessionRow.id)) ?? sessionRow;
  const outcome = await sessionOutcome(ctx, row);
  if (outcome) return { ok: true, result: outcome };
  return refuse(409, 'challengeId', 'challengeId: the challenge has already ended');
}

export type ReturnOutcome =
  | { ok: true; challenge: ChallengeRow; origin: string }
  | {
      ok: false;
      status: 400 | 403 | 404 | 409 | 410;
      reason: string;
      /** The page that may frame the refusal: known once the answer proved the secret. */
      origin?: string;
    };

/**
 * `POST /checkout/challenge/:id/return`: the ACS answer. The MD must match (compared in
 * constant time) and the PaRes is stored once; a replay is refused.
 */
export async function acceptChallengeReturn(
  ctx: BffContext,
  challengeId: string,
  form: { pares?: string | undefined; md?: string | undefined },
): Promise<ReturnOutcome> {
  const ch = await findChallenge(ctx.db, challengeId);
  if (!ch) return { ok: false, status: 404, reason: 'This authentication is unknown.' };
  const session = await findSession(ctx.db, ch.session_id);
  if (!session) return { ok: false, status: 404, reason: 'This authentication is unknown.' };
  if (!form.pares || !form.md || form.pares.length > 8192 || form.md.length > 200) {
    return { ok: false, status: 400, reason: 'The authentication answer is incomplete.' };
  }
  if (!challengeSecretMatches(form.md, ch.md)) {
    return { ok: false, status: 403, reason: 'The authentication answer does not match.' };
  }
  // The secret matched: the refusal is shown in the merchant's challenge dialog, framed by its
  // page (with frame-ancestors 'none' the shopper saw the browser's "refused to connect").
  const origin = session.origin;
  if (ch.status !== 'pending') {
    return { ok: false, status: 409, reason: 'This authentication was already answered.', origin };
  }
  if (ctx.clock.now().getTime() >= Date.parse(ch.expires_at)) {
    return { ok: false, status: 410, reason: 'This authentication has expired.', origin };
  }
  if (!(await storePares(ctx.db, ch.id, form.pares, ctx.clock.now()))) {
    return { ok: false, status: 409, reason: 'This authentication was already answered.', origin };
  }
  return { ok: true, challenge: ch, origin: session.origin };
}
