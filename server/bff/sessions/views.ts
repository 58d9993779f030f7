/**
 * What the merchant API shows of a session: the list row, the full detail (also the `data` of
 * its events), and the tries a session still accepts. Reads only.
 */
import type { SessionStatus } from '../checkout-api';
import type { BffContext } from '../context';
import type { SessionPlan } from './service';
import { listAttempts, sessionMethods, type AttemptRow, type SessionRow } from './store';

/** The merchant's metadata of a session (`{}` when none was given). */
export function sessionMetadata(row: SessionRow): Record<string, string> {
  return row.metadata_json ? (JSON.parse(row.metadata_json) as Record<string, string>) : {};
}

/**
 * Pays the session still accepts: none once it has ended or while a payment is in flight or
 * being confirmed (never "3 left" beside "not retryable"). A waiting challenge still counts
 * the tries left: a new pay abandons it.
 */
export function attemptsLeft(ctx: BffContext, row: SessionRow): number {
  if (row.status !== 'open' && row.status !== 'challenge') return 0;
  return Math.max(0, ctx.config.maxAttempts - row.attempts_used);
}

/** `GET /v1/checkout-sessions/:id`: everything the merchant server may know. */
export async function sessionDetail(ctx: BffContext, row: SessionRow) {
  const attempts = await listAttempts(ctx.db, row.id);
  const succeeded = attempts.find((a) => a.status === 'succeeded');
  return {
    ...sessionSummary(ctx, row),
    customer: row.customer_json ? (JSON.parse(row.customer_json) as unknown) : null,
    plan: row.plan_json ? (JSON.parse(row.plan_json) as SessionPlan) : null,
    attempts: attempts.map((a) => ({
      id: a.id,
      method: a.method,
      status: a.status,
      failureCode: a.failure_code,
      paymentId: a.payment_id,
      nsu: a.nsu,
      authorizationCode: a.authorization_code,
      subscriptionId: a.subscription_id,
      amount: a.amount,
      currency: 'BRL' as const,
      installments: a.installments,
      brand: a.card_brand ?? null,
      last4: a.card_last4 ?? null,
      createdAt: a.created_at,
      canceledAt: a.canceled_at,
      firstBilling: firstBillingOf(a),
    })),
    payment: succeeded
      ? {
          paymentId: succeeded.payment_id,
          nsu: succeeded.nsu,
          authorizationCode: succeeded.authorization_code,
          subscriptionId: succeeded.subscription_id,
          method: succeeded.method,
          amount: succeeded.amount,
          currency: 'BRL' as const,
          installments: succeeded.installments,
          brand: succeeded.card_brand ?? null,
          last4: succeeded.card_last4 ?? null,
          canceledAt: succeeded.canceled_at,
          firstBilling: firstBillingOf(succeeded),
        }
      : null,
    paymentIds: attempts.flatMap((a) => (a.payment_id ? [a.payment_id] : [])),
  };
}

/**
 * A subscription attempt's first billing, as the gateway reported it when the subscription was
 * made (its NSU and authorization code are the attempt's); null for a plain payment.
 */
export function firstBillingOf(a: AttemptRow) {
  if (!a.billing_id) return null;
  return {
    id: a.billing_id,
    status: a.billing_status,
    amount: a.billing_amount === null ? null : Number(a.billing_amount),
    currency: 'BRL' as const,
    nsu: a.nsu,
    authorizationCode: a.authorization_code,
    paymentId: a.payment_id,
  };
}

/** One row of `GET /v1/checkout-sessions` (no customer, no attempts). */
export function sessionSummary(ctx: BffContext, row: SessionRow) {
  return {
    id: row.id,
    status: row.status as SessionStatus,
    amount: row.amount,
    currency: 'BRL' as const,
    methods: sessionMethods(row),
    maxInstallments: row.max_installments,
    referenceTransaction: row.reference_transaction,
    origin: row.origin,
    failureCode: row.failure_code,
    attemptsLeft: attemptsLeft(ctx, row),
    metadata: sessionMetadata(row),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
