import { randomHex } from '../../lib/ids';
import { rowsOf } from '../../lib/precompiled';
import { constantTimeEqual, sha256Hex } from '../../lib/secrets';
import type { ErrorItem } from '../../lib/http';
import type {
  CreateSessionBody,
  CreatedSession,
  FailureCode,
  PayResult,
  PaymentMethod,
  PendingChallenge,
  PublicSession,
  SessionPlan,
  SessionStatus,
  SubscriptionTrial,
} from '../checkout-api';
import { MS } from '../../lib/clock';
import { challengeLauncherUrl } from '../payments/challenge-secret';
import type { Plan } from '../../gateway/schemas';
import { MAX_PAYMENT_CENTS, reaisToCents } from '../../gateway/money';
import type { BffContext } from '../context';
import { answeredNotFound, classifyGatewayError } from '../payments/outcomes';
import {
  findSession,
  findSucceededAttempt,
  insertSession,
  openSessionsDueQ,
  sessionMethods,
  staleChallengesQ,
  transitionChallenge,
  findAttempt,
  updateAttemptInFlight,
  type AttemptRow,
  type SessionRow,
} from './store';
import { transitionSession } from './transition';
import { atomically } from '../atomic';
import { attemptsLeft, sessionDetail } from './views';

export type Result<T> =
  { ok: true; value: T } | { ok: false; status: 400 | 404 | 503; items: ErrorItem[] };

const fail = (status: 400 | 404 | 503, tag: string, description: string): Result<never> => ({
  ok: false,
  status,
  items: [{ tag, description }],
});

export type { SessionPlan };

/** Days between billings of a plan type (DESIGN §5); Custom plans carry their own. */
const PLAN_INTERVAL_DAYS: Record<string, number> = {
  Monthly: 30,
  Bimonthly: 60,
  Quarterly: 90,
  Semesterly: 180,
  Yearly: 365,
};

/** Reads a recurrence plan from the gateway into what the session shows. */
export async function loadPlan(ctx: BffContext, planId: string): Promise<Result<SessionPlan>> {
  let plan: Plan;
  try {
    plan = await ctx.gateway.getPlan(planId, { timeoutMs: 10_000 });
  } catch (err) {
    const f = classifyGatewayError(err);
    if (f?.kind === 'rejected' || answeredNotFound(err)) {
      return fail(400, 'planId', 'planId: no such plan');
    }
    if (!f) throw err;
    return fail(503, 'gateway', 'gateway: the plan could not be read; try again later');
  }
  if (plan.status !== 'Active') {
    return fail(400, 'planId', `planId: the plan is ${plan.status}, not Active`);
  }
  const amount = reaisToCents(plan.amount);
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_PAYMENT_CENTS) {
    return fail(400, 'planId', 'planId: the plan has no chargeable amount');
  }
  return {
    ok: true,
    value: { id: plan.id, name: plan.name, description: plan.description, ...planTermsOf(plan) },
  };
}

/**
 * What a gateway plan bills: its amount (cents), the days between billings, how many billings
 * (0: until canceled) and the days before the first.
 */
export function planTermsOf(
  plan: Pick<Plan, 'amount' | 'planType' | 'interval' | 'installments' | 'trialDays'>,
): Required<Pick<SessionPlan, 'amount' | 'intervalDays' | 'installments' | 'trialDays'>> {
  return {
    amount: reaisToCents(plan.amount),
    intervalDays: PLAN_INTERVAL_DAYS[plan.planType] ?? plan.interval ?? 0,
    trialDays: plan.trialDays ?? 0,
    installments: plan.installments ?? 0,
  };
}

/**
 * Creates a checkout session. The amount, methods, installments and origin are fixed here,
 * server side; the browser can only choose among them. With a `planId` the amount is the
 * plan's and paying subscribes the card (credit, one installment). The client secret is
 * answered once and stored as a hash.
 */
export async function createSession(
  ctx: BffContext,
  body: CreateSessionBody,
): Promise<Result<CreatedSession>> {
  if (body.planId !== undefined && body.amount !== undefined) {
    return fail(400, 'amount', 'amount: comes from the plan; leave it out with planId');
  }
  if (body.planId === undefined && body.amount === undefined) {
    return fail(400, 'amount', 'amount: is required (cents), or a planId');
  }
  let origin: string;
  try {
    origin = new URL(body.origin).origin;
  } catch {
    return fail(400, 'origin', 'origin: must be an origin like https://shop.example');
  }
  if (origin !== body.origin.replace(/\/$/, '')) {
    return fail(400, 'origin', 'origin: must be an origin (scheme, host, port) without a path');
  }
  if (!ctx.config.allowedOrigins.includes(origin)) {
    return fail(400, 'origin', 'origin: not one of the origins allowed to embed the checkout');
  }
  let plan: SessionPlan | undefined;
  if (body.planId !== undefined) {
    // A subscription is paid by credit in one installment: anything else is refused, not
    // stored as something the merchant did not ask for.
    if (body.methods && body.methods.some((m) => m !== 'credit')) {
      return fail(400, 'methods', 'methods: a subscription is paid by credit card only ["credit"]');
    }
    if (body.maxInstallments !== undefined && body.maxInstallments !== 1) {
      return fail(
        400,
        'maxInstallments',
        'maxInstallments: a subscription bills each installment of its plan once; must be 1',
      );
    }
    const loaded = await loadPlan(ctx, body.planId);
    if (!loaded.ok) return loaded;
    plan = loaded.value;
  }
  const amount = plan ? plan.amount : (body.amount ?? 0);
  const offered: PaymentMethod[] = plan ? ['credit'] : (body.methods ?? ['credit', 'debit']);
  const methods = [...new Set(offered)];
  const now = ctx.clock.now();
  const expiresAt = new Date(
    now.getTime() + (body.expiresInSeconds ?? ctx.config.sessionTtlSeconds) * 1000,
  );
  // Hex only: the frame splits `<id>_secret_<random>` and expects no `_` inside the id.
  const id = `cs_${randomHex(16)}`;
  const clientSecret = `${id}_secret_${randomHex(24)}`;
  await insertSession(ctx.db, {
    id,
    client_secret_hash: sha256Hex(clientSecret),
    status: 'open',
    amount,
    methods: methods.join(','),
    max_installments: plan ? 1 : (body.maxInstallments ?? 1),
    reference_transaction: body.referenceTransaction ?? null,
    customer_json: body.customer ? JSON.stringify(body.customer) : null,
    origin,
    plan_id: plan?.id ?? null,
    plan_json: plan ? JSON.stringify(plan) : null,
    frame_accept: null,
    failure_code: null,
    attempts_used: 0,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
    metadata_json:
      body.metadata && Object.keys(body.metadata).length > 0 ? JSON.stringify(body.metadata) : null,
  });
  return {
    ok: true,
    value: {
      id,
      clientSecret,
      status: 'open',
      amount,
      currency: 'BRL',
      expiresAt: expiresAt.toISOString(),
      metadata: body.metadata ?? {},
    },
  };
}

/** The session id a client secret belongs to (`<id>_secret_<random>`), or null. */
export function sessionIdOfSecret(secret: string): string | null {
  const m = /^(cs_[A-Za-z0-9-]{1,40})_secret_[0-9a-f]{48}$/.exec(secret);
  return m ? m[1]! : null;
}

/** Finds the session a client secret opens, comparing the hash in constant time. */
export async function authenticateClientSecret(
  ctx: BffContext,
  secret: string,
): Promise<SessionRow | undefined> {
  const id = sessionIdOfSecret(secret);
  if (!id) return undefined;
  const row = await findSession(ctx.db, id);
  if (!row) return undefined;
  return constantTimeEqual(sha256Hex(secret), row.client_secret_hash) ? row : undefined;
}

/**
 * Brings a session's status up to date with the clock: an open session past its expiry
 * becomes `expired`; a challenge left unanswered past its expiry fails `challenge_timeout`.
 * Resolves the fresh row.
 */
export async function refreshSession(ctx: BffContext, row: SessionRow): Promise<SessionRow> {
  const now = ctx.clock.now();
  let changed = false;
  if (row.status === 'challenge') {
    changed = await expireStaleChallenges(ctx, row, now);
  }
  const current = changed ? ((await findSession(ctx.db, row.id)) ?? row) : row;
  if (current.status === 'open' && now.getTime() >= Date.parse(current.expires_at)) {
    await transitionSession(ctx, current.id, 'open', 'expired', now, {
      failure_code: 'session_expired',
    });
    changed = true;
  }
  return changed ? ((await findSession(ctx.db, row.id)) ?? row) : row;
}

/**
 * `POST /v1/checkout-sessions/:id/expire`: ends an `open` session now (`expired`, its event
 * written with it); the frame then shows it ended. An expired session answers as it is; one
 * paying, being confirmed or ended otherwise cannot be expired (409 naming its status).
 */
export async function expireSession(
  ctx: BffContext,
  id: string,
): Promise<{ status: number; body: unknown }> {
  const row = await findSession(ctx.db, id);
  if (!row)
    return { status: 404, body: [{ tag: 'id', description: 'id: no such checkout session' }] };
  const now = ctx.clock.now();
  const current = await refreshSession(ctx, row);
  if (current.status === 'open') {
    await transitionSession(ctx, id, 'open', 'expired', now, { failure_code: 'session_expired' });
  }
  const fresh = (await findSession(ctx.db, id))!;
  if (fresh.status !== 'expired') {
    return {
      status: 409,
      body: [
        {
          tag: 'status',
          description: `status: the session is ${fresh.status}; only an open session can be expired`,
        },
      ],
    };
  }
  return { status: 200, body: await sessionDetail(ctx, fresh) };
}

/**
 * Expires the open sessions whose time has run out (the maintenance round), so their
 * `checkout_session.expired` events go out without anyone reading them. At most `limit`.
 */
export async function expireDueSessions(ctx: BffContext, limit = 500): Promise<number> {
  const now = ctx.clock.now();
  const due = await rowsOf(ctx.db, openSessionsDueQ(ctx.db, { now: now.toISOString(), limit }));
  let n = 0;
  for (const { id } of due) {
    const moved = await transitionSession(ctx, id, 'open', 'expired', now, {
      failure_code: 'session_expired',
    });
    if (moved) n++;
  }
  return n;
}

/**
 * Ends the challenges left past their time (a shopper who closed the tab sends no cancel, and
 * a challenge otherwise ends only when its session is read), with their attempts and
 * sessions: the session takes payments again or fails, or expires if its own time ran out,
 * and its events go out. At most `limit` (the maintenance round).
 */
export async function endStaleChallenges(ctx: BffContext, limit = 200): Promise<number> {
  const now = ctx.clock.now();
  const rows = await rowsOf(ctx.db, staleChallengesQ(ctx.db, { now: now.toISOString(), limit }));
  let n = 0;
  for (const id of new Set(rows.map((r) => r.session_id))) {
    const row = await findSession(ctx.db, id);
    if (row?.status !== 'challenge') continue;
    if ((await refreshSession(ctx, row)).status !== 'challenge') n++;
  }
  return n;
}

async function expireStaleChallenges(
  ctx: BffContext,
  row: SessionRow,
  now: Date,
): Promise<boolean> {
  const open = await ctx.db
    .selectFrom('challenges')
    .select(['id', 'attempt_id', 'expires_at'])
    .where('session_id', '=', row.id)
    .where('status', 'in', ['pending', 'answered'])
    .execute();
  let changed = false;
  for (const ch of open) {
    if (now.getTime() < Date.parse(ch.expires_at)) continue;
    // The challenge and its attempt and session end together, or not at all.
    const ended = await atomically(ctx, async (tx) => {
      if (!(await transitionChallenge(tx.db, ch.id, ['pending', 'answered'], 'expired'))) {
        return false;
      }
      await endAttemptAsFailure(tx, row, ch.attempt_id, 'challenge_timeout', true, 'challenge');
      return true;
    });
    if (ended) changed = true;
  }
  return changed;
}

/**
 * Ends an attempt that failed, and moves the session on from `from`: back to `open` while
 * tries remain (a `counts` failure uses one), else `failed` with `attempts_exhausted`, in one
 * transaction (or the caller's). Resolves the answer for the frame.
 */
export async function endAttemptAsFailure(
  ctx: BffContext,
  session: SessionRow,
  attemptId: string,
  code: FailureCode,
  counts: boolean,
  from: SessionStatus | readonly SessionStatus[],
  extra: { status?: 'declined' | 'failed'; returnCode?: string } = {},
): Promise<PayResult> {
  // The attempt and its session move together: a session left `pending` or `challenge` beside
  // an attempt that is no longer unknown would be seen by no one again.
  return atomically(ctx, async (tx): Promise<PayResult> => {
    const now = tx.clock.now();
    const moved = await updateAttemptInFlight(tx.db, attemptId, {
      status: extra.status ?? 'failed',
      failure_code: code,
      return_code: extra.returnCode ?? null,
      updated_at: now.toISOString(),
    });
    if (!moved) return settledMeanwhile(tx, session.id, attemptId);
    const fresh = (await findSession(tx.db, session.id)) ?? session;
    const used = fresh.attempts_used + (counts ? 1 : 0);
    const left = Math.max(0, tx.config.maxAttempts - used);
    if (left === 0) {
      await transitionSession(tx, session.id, from, 'failed', now, {
        attempts_used: used,
        failure_code: 'attempts_exhausted',
      });
      return {
        status: 'failed',
        error: { code: 'attempts_exhausted', retryable: false },
        attemptsLeft: 0,
      };
    }
    await transitionSession(tx, session.id, from, 'open', now, { attempts_used: used });
    return { status: 'failed', error: { code, retryable: true }, attemptsLeft: left };
  });
}

/** The ended session's answer (succeeded or failed), or undefined while it is still live. */
export async function sessionOutcome(
  ctx: BffContext,
  row: SessionRow,
): Promise<PayResult | undefined> {
  if (row.status === 'succeeded') {
    const attempt = await findSucceededAttempt(ctx.db, row.id);
    if (attempt) return succeededResult(attempt);
  }
  if (row.status === 'failed' || row.status === 'expired') {
    const code = (row.failure_code ??
      (row.status === 'expired' ? 'session_expired' : 'declined')) as FailureCode;
    return {
      status: 'failed',
      error: { code, retryable: false },
      attemptsLeft: attemptsLeft(ctx, row),
    };
  }
  return undefined;
}

/**
 * The answer of a step whose attempt another path settled while the step's gateway call ran
 * (`updateAttemptInFlight` false): the attempt as it stands, not what the call saw.
 */
export async function settledMeanwhile(
  ctx: BffContext,
  sessionId: string,
  attemptId: string,
): Promise<PayResult> {
  const attempt = await findAttempt(ctx.db, attemptId);
  if (attempt?.status === 'succeeded') return succeededResult(attempt);
  const row = await findSession(ctx.db, sessionId);
  const ended = row ? await sessionOutcome(ctx, row) : undefined;
  if (ended) return ended;
  if (row?.status === 'open' && (attempt?.status === 'failed' || attempt?.status === 'declined')) {
    return {
      status: 'failed',
      error: { code: (attempt.failure_code ?? 'declined') as FailureCode, retryable: true },
      attemptsLeft: attemptsLeft(ctx, row),
    };
  }
  return { status: 'pending' };
}

export function succeededResult(attempt: AttemptRow): PayResult {
  const trial = trialOf(attempt);
  return {
    status: 'succeeded',
    payment: {
      paymentId: attempt.payment_id ?? '',
      authorizationCode: attempt.authorization_code ?? '',
      // What this payment charged: nothing yet on a trial.
      amount: trial ? 0 : attempt.amount,
      installments: attempt.installments,
      method: attempt.method === 'debit' ? 'debit' : 'credit',
      ...(attempt.subscription_id ? { subscriptionId: attempt.subscription_id } : {}),
      ...(trial ? { trial } : {}),
    },
  };
}

/**
 * The trial a subscription attempt began with: its first charge falls due `trial_days` after
 * the subscription was made (the attempt's creation, seconds before), on that São Paulo day
 * (UTC−3, the gateway's).
 */
function trialOf(attempt: AttemptRow): SubscriptionTrial | undefined {
  const days = attempt.trial_days;
  if (!attempt.subscription_id || !days || days <= 0) return undefined;
  const due = Date.parse(attempt.created_at) + days * MS.day - 3 * MS.hour;
  return { days, firstChargeOn: new Date(due).toISOString().slice(0, 10) };
}

/**
 * The bank step a session in `challenge` waits for (the newest live one), so a reloaded frame
 * can reopen it instead of leaving it to be canceled by the next pay.
 */
async function pendingChallenge(
  ctx: BffContext,
  row: SessionRow,
): Promise<PendingChallenge | undefined> {
  if (row.status !== 'challenge') return undefined;
  const ch = await ctx.db
    .selectFrom('challenges')
    .select(['id', 'status', 'window_size'])
    .where('session_id', '=', row.id)
    .where('status', 'in', ['pending', 'answered'])
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  if (!ch) return undefined;
  return {
    challengeId: ch.id,
    challengeUrl: challengeLauncherUrl(ctx.config, ch.id),
    windowSize: ch.window_size as PendingChallenge['windowSize'],
    answered: ch.status === 'answered',
  };
}

/** `GET /checkout/api/session`. */
export async function publicSession(ctx: BffContext, row: SessionRow): Promise<PublicSession> {
  const outcome = await sessionOutcome(ctx, row);
  const challenge = await pendingChallenge(ctx, row);
  return {
    id: row.id,
    status: row.status as SessionStatus,
    amount: row.amount,
    currency: 'BRL',
    methods: sessionMethods(row),
    maxInstallments: row.max_installments,
    attemptsLeft: attemptsLeft(ctx, row),
    expiresAt: row.expires_at,
    ...(row.plan_json ? { plan: JSON.parse(row.plan_json) as SessionPlan } : {}),
    ...(outcome ? { outcome } : {}),
    ...(challenge ? { challenge } : {}),
  };
}
