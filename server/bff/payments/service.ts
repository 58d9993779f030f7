import type { Logger } from 'pino';
import type {
  CardInfo,
  Customer,
  Debit3dsPaymentResponse,
  DeviceInfo,
  PaymentAuthorization,
} from '../../gateway/schemas';
import type { ErrorItem } from '../../lib/http';
import { prefixedId, uuid } from '../../lib/ids';
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
  succeededResult,
} from '../sessions/service';
import {
  findChallenge,
  findSession,
  insertAttempt,
  insertChallenge,
  sessionMethods,
  storePares,
  transitionChallenge,
  transitionSession,
  updateAttempt,
  type AttemptRow,
  type ChallengeRow,
  type SessionRow,
} from '../sessions/store';
import {
  classifyGatewayError,
  countsAsAttempt,
  failureCodeOf,
  type GatewayFailure,
} from './outcomes';
import { firstBillingFailure, firstBillingOf } from '../subscriptions/service';
import {
  challengeLauncherUrl,
  challengeSecretMatches,
  newChallengeSecret,
} from './challenge-secret';

/** An answer to the frame: a PayResult (200) or an error array with its status. */
export type StepAnswer =
  { ok: true; result: PayResult } | { ok: false; status: 400 | 404 | 409; items: ErrorItem[] };

const refuse = (status: 400 | 404 | 409, tag: string, description: string): StepAnswer => ({
  ok: false,
  status,
  items: [{ tag, description }],
});

/** What the BFF adds to the frame's device data: what JavaScript cannot read. */
export interface RequestFacts {
  clientIp?: string | undefined;
  userAgent?: string | undefined;
  /** The Accept header of this request (used when the frame page's was not recorded). */
  accept?: string | undefined;
}

const THREE_DS_PENDING = 'PENDING_AUTHENTICATION';

/**
 * Answers for a session that cannot take a payment now, or undefined when it can.
 * The order matters: an ended session says how it ended; a live one says it is busy.
 */
async function notPayable(ctx: BffContext, row: SessionRow): Promise<StepAnswer | undefined> {
  switch (row.status) {
    case 'open':
      return undefined;
    case 'processing':
    case 'challenge':
      return refuse(409, 'session', 'session: a payment is already in progress');
    case 'succeeded':
      return {
        ok: true,
        result: {
          status: 'failed',
          error: { code: 'already_paid', retryable: false },
          attemptsLeft: 0,
        },
      };
    default: {
      const outcome = await sessionOutcome(ctx, row);
      return {
        ok: true,
        result: outcome ?? {
          status: 'failed',
          error: { code: 'session_expired', retryable: false },
          attemptsLeft: 0,
        },
      };
    }
  }
}

function customerOf(row: SessionRow, body: PayBody, facts: RequestFacts): Customer | undefined {
  const stored = row.customer_json ? (JSON.parse(row.customer_json) as Customer) : {};
  const customer: Customer = { ...stored };
  if (body.document) {
    customer.documentType = body.document.type;
    customer.documentNumber = body.document.number;
  }
  if (facts.clientIp) customer.ipAddress = facts.clientIp.slice(0, 48);
  return Object.keys(customer).length ? customer : undefined;
}

export function deviceInfoOf(
  body: PayBody,
  frameAccept: string | null,
  facts: RequestFacts,
): DeviceInfo {
  const d = body.deviceInfo;
  const accept = (frameAccept ?? facts.accept ?? '*/*').slice(0, 255);
  const info: DeviceInfo = {
    httpAcceptBrowserValue: accept,
    httpAcceptContent: accept,
    httpBrowserLanguage: d.language,
    httpBrowserJavaEnabled: d.javaEnabled ? 'Y' : 'N',
    httpBrowserJavaScriptEnabled: 'Y',
    httpBrowserColorDepth: String(d.colorDepth),
    httpBrowserScreenHeight: String(d.screenHeight),
    httpBrowserScreenWidth: String(d.screenWidth),
    httpBrowserTimeDifference: String(d.timezoneOffset),
    userAgentBrowserValue: (facts.userAgent ?? d.userAgent).slice(0, 255),
  };
  if (facts.clientIp) info.ipAddress = facts.clientIp.slice(0, 48);
  return info;
}

function cardInfoOf(
  encryptedCard: string,
  cardholderName: string,
  brand?: string | null,
): CardInfo {
  const card: CardInfo = { encryptedCard, cardholderName };
  if (brand) card.brand = brand as NonNullable<CardInfo['brand']>;
  return card;
}

/**
 * `POST /checkout/api/pay`: one gateway call for one attempt. The amount comes from the
 * session; the session is claimed (`open → processing`) before the call so two submits can
 * never both reach the gateway.
 */
export async function pay(
  ctx: BffContext,
  sessionRow: SessionRow,
  body: PayBody,
  facts: RequestFacts,
  log: Logger,
): Promise<StepAnswer> {
  let row = await refreshSession(ctx, sessionRow);
  if (row.status === 'challenge') row = await abandonPendingChallenge(ctx, row);
  const blocked = await notPayable(ctx, row);
  if (blocked) return blocked;
  if (!sessionMethods(row).includes(body.method)) {
    return refuse(400, 'method', `method: ${body.method} is not offered by this session`);
  }
  if (body.method === 'credit' && body.installments > row.max_installments) {
    return refuse(400, 'installments', `installments: at most ${row.max_installments}`);
  }
  if (body.method === 'debit' && body.installments !== 1) {
    return refuse(400, 'installments', 'installments: debit is paid in one installment');
  }

  const now = ctx.clock.now();
  if (!(await transitionSession(ctx.db, row.id, 'open', 'processing', now))) {
    const current = (await findSession(ctx.db, row.id)) ?? row;
    return (
      (await notPayable(ctx, current)) ??
      refuse(409, 'session', 'session: a payment is already in progress')
    );
  }

  const attemptId = prefixedId('pa', 12);
  await insertAttempt(ctx.db, {
    id: attemptId,
    session_id: row.id,
    method: body.method,
    // Unknown until the gateway answers: a crash mid-call leaves the truth visible.
    status: 'unknown',
    failure_code: null,
    return_code: null,
    payment_id: null,
    nsu: null,
    authorization_code: null,
    subscription_id: null,
    amount: row.amount,
    installments: body.installments,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    canceled_at: null,
  });
  const attemptLog = log.child({ sessionId: row.id, attemptId, method: body.method });
  const customer = customerOf(row, body, facts);
  const referenceTransaction = row.reference_transaction ?? row.id;
  const cardInfo = cardInfoOf(body.encryptedCard, body.cardholderName, body.brand);

  if (row.plan_id) {
    return {
      ok: true,
      result: await subscribe(ctx, row, row.plan_id, attemptId, cardInfo, attemptLog),
    };
  }

  if (body.method === 'credit') {
    try {
      const res = await ctx.gateway.createCreditPayment(
        {
          payment: {
            transactionType: 'credit',
            amount: row.amount,
            productType: body.installments === 1 ? 'avista' : 'lojista',
            installments: body.installments,
          },
          referenceTransaction,
          sellerInfo: { codeAntiFraud: body.fingerprint },
          ...(customer ? { customer } : {}),
          cardInfo,
        },
        { idempotencyKey: attemptId },
      );
      return {
        ok: true,
        result: await settleAuthorization(
          ctx,
          row,
          attemptId,
          res.paymentAuthorization,
          'processing',
          attemptLog,
        ),
      };
    } catch (err) {
      return {
        ok: true,
        result: await settleError(ctx, row, attemptId, err, 'processing', attemptLog),
      };
    }
  }

  const code3ds = uuid();
  let res: Debit3dsPaymentResponse;
  try {
    res = await ctx.gateway.createDebit3dsPayment(
      {
        cardInfo,
        ...(customer ? { customer } : {}),
        deviceInfo: deviceInfoOf(body, row.frame_accept, facts),
        payment: {
          transactionType: 'debit',
          amount: row.amount,
          productType: 'debito',
          installments: 1,
        },
        sellerInfo: { codeAntiFraud: body.fingerprint, code3DS: code3ds, urlSite3DS: row.origin },
        referenceTransaction,
      },
      { idempotencyKey: attemptId },
    );
  } catch (err) {
    return {
      ok: true,
      result: await settleError(ctx, row, attemptId, err, 'processing', attemptLog),
    };
  }

  const t = res.threeDs;
  if (t.status === THREE_DS_PENDING && !res.paymentAuthorization) {
    if (!t.acsUrl || !t.pareq || !t.authenticationTransactionId) {
      attemptLog.error('gateway asked for a challenge without acsUrl, pareq or transaction id');
      return {
        ok: true,
        result: await settle(
          ctx,
          row,
          attemptId,
          { kind: 'unavailable' },
          'processing',
          attemptLog,
        ),
      };
    }
    return {
      ok: true,
      result: await openChallenge(ctx, row, attemptId, body, {
        acsUrl: t.acsUrl,
        pareq: t.pareq,
        authenticationTransactionId: t.authenticationTransactionId,
        code3ds,
      }),
    };
  }
  if (!res.paymentAuthorization) {
    const failure: GatewayFailure =
      t.status === 'AUTHENTICATION_FAILED' ? { kind: 'three_ds_failed' } : { kind: 'unavailable' };
    return {
      ok: true,
      result: await settle(ctx, row, attemptId, failure, 'processing', attemptLog),
    };
  }
  return {
    ok: true,
    result: await settleAuthorization(
      ctx,
      row,
      attemptId,
      res.paymentAuthorization,
      'processing',
      attemptLog,
    ),
  };
}

/**
 * A new pay while a challenge waits unanswered means the shopper left it (a reloaded page, a
 * closed dialog whose cancel was lost): the challenge is canceled, using its attempt, so the
 * session is not stuck for ten minutes. An answered challenge is left to complete.
 */
async function abandonPendingChallenge(ctx: BffContext, row: SessionRow): Promise<SessionRow> {
  const pending = await ctx.db
    .selectFrom('challenges')
    .select(['id', 'attempt_id'])
    .where('session_id', '=', row.id)
    .where('status', '=', 'pending')
    .execute();
  for (const ch of pending) {
    if (await transitionChallenge(ctx.db, ch.id, ['pending'], 'canceled')) {
      await endAttemptAsFailure(ctx, row, ch.attempt_id, 'challenge_canceled', true, 'challenge');
    }
  }
  return (await findSession(ctx.db, row.id)) ?? row;
}

/**
 * A plan session: the card goes to the gateway's vault and a subscription to the plan is
 * created; the gateway then runs the billings (the first one at once unless the plan has a
 * trial). Their outcomes reach the merchant by webhooks and reconciliation, not here.
 */
async function subscribe(
  ctx: BffContext,
  row: SessionRow,
  planId: string,
  attemptId: string,
  cardInfo: CardInfo,
  log: Logger,
): Promise<PayResult> {
  let subscriptionId: string;
  try {
    const { vaultId } = await ctx.gateway.vaultCard(
      {
        cardInfo: {
          encryptedCard: cardInfo.encryptedCard!,
          cardholderName: cardInfo.cardholderName,
          ...(cardInfo.brand ? { brand: cardInfo.brand } : {}),
        },
      },
      { idempotencyKey: `${attemptId}-vault` },
    );
    const ref = row.reference_transaction;
    subscriptionId = await ctx.gateway.createSubscription(
      { vaultId, planId, orderNumber: ref && ref.length <= 10 ? ref : row.id.slice(-10) },
      { idempotencyKey: attemptId },
    );
  } catch (err) {
    return settleError(ctx, row, attemptId, err, 'processing', log);
  }
  await updateAttempt(ctx.db, attemptId, { subscription_id: subscriptionId });
  const failure = await firstBillingOutcome(ctx, subscriptionId, log);
  if (failure) {
    return endAttemptAsFailure(ctx, row, attemptId, failure, true, 'processing', {
      status: 'declined',
    });
  }
  log.info({ subscriptionId }, 'subscription created');
  return succeed(ctx, row.id, attemptId, 'processing', {});
}

/** Marks the attempt (with what the gateway answered) and its session succeeded. */
async function succeed(
  ctx: BffContext,
  sessionId: string,
  attemptId: string,
  from: 'processing',
  answer: Partial<Pick<AttemptRow, 'payment_id' | 'nsu' | 'authorization_code' | 'return_code'>>,
): Promise<PayResult> {
  const now = ctx.clock.now();
  await updateAttempt(ctx.db, attemptId, {
    ...answer,
    status: 'succeeded',
    updated_at: now.toISOString(),
  });
  await transitionSession(ctx.db, sessionId, from, 'succeeded', now, { failure_code: null });
  const attempt = await ctx.db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('id', '=', attemptId)
    .executeTakeFirstOrThrow();
  return succeededResult(attempt);
}

/**
 * The first billing is charged when the subscription is created (no trial). When it was not
 * paid the subscription is canceled and the shopper told why (resolves the failure code);
 * a Paid billing, none yet (a trial) or a gateway that cannot be read resolves null: the
 * subscription stands and later outcomes reach the merchant by webhooks.
 */
async function firstBillingOutcome(
  ctx: BffContext,
  subscriptionId: string,
  log: Logger,
): Promise<FailureCode | null> {
  let status;
  try {
    status = (await firstBillingOf(ctx, subscriptionId))?.status;
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    log.warn({ subscriptionId }, 'first billing could not be read');
    return null;
  }
  const code = status ? firstBillingFailure(status) : null;
  if (!code) return null;
  log.info({ subscriptionId, billingStatus: status }, 'first billing not paid');
  try {
    await ctx.gateway.setSubscriptionStatus(
      { subscriptionId, status: 'Canceled' },
      { timeoutMs: 10_000 },
    );
  } catch (err) {
    if (!classifyGatewayError(err)) throw err;
    log.error({ subscriptionId }, 'subscription with an unpaid first billing not canceled');
  }
  return code;
}

async function openChallenge(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  body: PayBody,
  g: { acsUrl: string; pareq: string; authenticationTransactionId: string; code3ds: string },
): Promise<PayResult> {
  const now = ctx.clock.now();
  const challengeId = prefixedId('ch', 16);
  const secret = newChallengeSecret();
  const windowSize: ChallengeWindowSize = body.challengeWindowSize ?? '03';
  await insertChallenge(ctx.db, {
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
  await updateAttempt(ctx.db, attemptId, { status: 'challenge', updated_at: now.toISOString() });
  await transitionSession(ctx.db, row.id, 'processing', 'challenge', now);
  return {
    status: 'challenge',
    challengeId,
    challengeUrl: challengeLauncherUrl(ctx.config.publicUrl, challengeId, secret.value),
    windowSize,
  };
}

async function settleAuthorization(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  auth: PaymentAuthorization,
  from: 'processing',
  log: Logger,
): Promise<PayResult> {
  if (auth.returnCode !== '00') {
    return settle(
      ctx,
      row,
      attemptId,
      {
        kind: 'declined',
        returnCode: auth.returnCode,
        ids: {
          paymentId: auth.paymentId,
          authorizationCode: auth.authorizationCode,
          nsu: auth.nsu ?? null,
        },
      },
      from,
      log,
    );
  }
  log.info({ paymentId: auth.paymentId }, 'payment succeeded');
  return succeed(ctx, row.id, attemptId, from, {
    payment_id: auth.paymentId,
    nsu: auth.nsu ?? null,
    authorization_code: auth.authorizationCode,
    return_code: auth.returnCode,
  });
}

async function settleError(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  err: unknown,
  from: 'processing',
  log: Logger,
): Promise<PayResult> {
  const failure = classifyGatewayError(err);
  if (!failure) {
    // A bug, not a gateway answer: release the session so the shopper is not stuck.
    await settle(ctx, row, attemptId, { kind: 'unavailable' }, from, log);
    throw err;
  }
  return settle(ctx, row, attemptId, failure, from, log);
}

async function settle(
  ctx: BffContext,
  row: SessionRow,
  attemptId: string,
  failure: GatewayFailure,
  from: 'processing',
  log: Logger,
): Promise<PayResult> {
  const code: FailureCode = failureCodeOf(failure);
  log.info({ outcome: failure.kind, failureCode: code }, 'payment not approved');
  if (failure.kind === 'declined' && failure.ids) {
    await updateAttempt(ctx.db, attemptId, {
      payment_id: failure.ids.paymentId,
      authorization_code: failure.ids.authorizationCode,
      nsu: failure.ids.nsu,
    });
  }
  if (failure.kind === 'unknown') {
    // The request may have reached the gateway: never retried; reconciliation or a webhook
    // tells later. The session ends so no second charge can follow.
    const now = ctx.clock.now();
    await updateAttempt(ctx.db, attemptId, {
      status: 'unknown',
      failure_code: code,
      updated_at: now.toISOString(),
    });
    await transitionSession(ctx.db, row.id, from, 'failed', now, { failure_code: code });
    return { status: 'failed', error: { code, retryable: false }, attemptsLeft: 0 };
  }
  return endAttemptAsFailure(ctx, row, attemptId, code, countsAsAttempt(failure), from, {
    status: failure.kind === 'declined' ? 'declined' : 'failed',
    ...(failure.kind === 'declined' ? { returnCode: failure.returnCode } : {}),
  });
}

// ---------------------------------------------------------------- challenge

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
  if (!(await transitionChallenge(ctx.db, ch.id, ['answered'], 'completed'))) {
    return refuse(409, 'challengeId', 'challengeId: the challenge has already ended');
  }
  const now = ctx.clock.now();
  if (!(await transitionSession(ctx.db, row.id, 'challenge', 'processing', now))) {
    return refuse(409, 'session', 'session: not waiting for a challenge');
  }
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
    if (!res.paymentAuthorization) {
      const failure: GatewayFailure =
        res.threeDs.status === 'AUTHENTICATION_FAILED' || res.threeDs.status === THREE_DS_PENDING
          ? { kind: 'three_ds_failed' }
          : { kind: 'unavailable' };
      return {
        ok: true,
        result: await settle(ctx, row, ch.attempt_id, failure, 'processing', attemptLog),
      };
    }
    return {
      ok: true,
      result: await settleAuthorization(
        ctx,
        row,
        ch.attempt_id,
        res.paymentAuthorization,
        'processing',
        attemptLog,
      ),
    };
  } catch (err) {
    return {
      ok: true,
      result: await settleError(ctx, row, ch.attempt_id, err, 'processing', attemptLog),
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
  if (!(await transitionChallenge(ctx.db, ch.id, ['pending', 'answered'], to))) {
    const row = (await findSession(ctx.db, sessionRow.id)) ?? sessionRow;
    const outcome = await sessionOutcome(ctx, row);
    if (outcome) return { ok: true, result: outcome };
    return refuse(409, 'challengeId', 'challengeId: the challenge has already ended');
  }
  const row = (await findSession(ctx.db, sessionRow.id)) ?? sessionRow;
  const code: FailureCode = timedOut ? 'challenge_timeout' : 'challenge_canceled';
  return {
    ok: true,
    result: await endAttemptAsFailure(ctx, row, ch.attempt_id, code, true, 'challenge'),
  };
}

// ---------------------------------------------------------------- TermUrl

export type ReturnOutcome =
  | { ok: true; challenge: ChallengeRow; origin: string }
  | { ok: false; status: 400 | 403 | 404 | 409 | 410; reason: string };

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
  if (ch.status !== 'pending') {
    return { ok: false, status: 409, reason: 'This authentication was already answered.' };
  }
  if (ctx.clock.now().getTime() >= Date.parse(ch.expires_at)) {
    return { ok: false, status: 410, reason: 'This authentication has expired.' };
  }
  if (!(await storePares(ctx.db, ch.id, form.pares, ctx.clock.now()))) {
    return { ok: false, status: 409, reason: 'This authentication was already answered.' };
  }
  return { ok: true, challenge: ch, origin: session.origin };
}
