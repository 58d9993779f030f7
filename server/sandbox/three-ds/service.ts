import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { CardBrand, ThreeDs, Validate3dsRequest } from '../../gateway/schemas/payments';
import { MS } from '../../lib/clock';
import type { ErrorItem } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import type { SandboxClient } from '../clients';
import { findClient, type SandboxContext } from '../context';
import {
  INTERNAL_ERROR_ITEMS,
  THREE_DS_VERSION,
  authorizationBody,
  recordAuthorization,
  threeDsFailItems,
  threeDsSuccess,
} from '../payments/authorize';
import { resolvePaymentCard } from '../payments/payment-card';
import { checkProductType } from '../payments/rules';
import type { ApiAnswer } from '../payments/service';
import { paymentsState } from '../payments/state';
import type { ReturnCode } from '../payments/test-cards';
import { pendingPaymentId } from './pending-payments';
import { encodePareq, signPares, verifyPares, type ParesResult } from './pares';
import type { ThreeDsTables } from './store';

/** A challenge must be completed (OTP and validate) within this time. */
export const CHALLENGE_TTL_MS = 10 * MS.minute;
/** Wrong OTPs allowed before the ACS fails the authentication. */
export const MAX_OTP_TRIES = 3;
export const SANDBOX_OTP = '1234';

export type AuthRow = ThreeDsTables['three_ds_auths'];

/**
 * Keyed HMAC-SHA-256 of a card number, so validate can prove it is the same card. The key
 * lives outside the database (derived from the KEK), so a copy of the table cannot be
 * brute-forced back into card numbers.
 */
export function panFingerprint(key: Buffer, number: string): string {
  return createHmac('sha256', key).update(number).digest('hex');
}

export interface ChallengeInput {
  amount: number;
  productType: string;
  installments: number;
  brand: CardBrand;
  /** The card number, or `vault:<vaultId>` for a token: only its keyed fingerprint is kept. */
  cardIdentity: string;
  maskedNumber: string;
  behaviour: 'challenge' | 'challenge_fail';
  returnCode: ReturnCode;
  internalError: boolean;
  referenceTransaction: string | null;
}

/** Stores a pending authentication and answers the `threeDs` of a challenge. */
export async function createChallenge(
  ctx: SandboxContext,
  client: SandboxClient,
  input: ChallengeInput,
): Promise<ThreeDs> {
  const id = randomUUID();
  const ref = randomBytes(16).toString('hex');
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('three_ds_auths')
    .values({
      id,
      user_name: client.userName,
      pareq_ref: ref,
      amount: input.amount,
      product_type: input.productType,
      installments: input.installments,
      brand: input.brand,
      last_four: input.maskedNumber.slice(-4),
      pan_fingerprint: panFingerprint(paymentsState(ctx).cardFingerprintKey, input.cardIdentity),
      behaviour: input.behaviour,
      return_code: input.returnCode,
      internal_error: input.internalError ? 1 : 0,
      reference_transaction: input.referenceTransaction,
      status: 'pending',
      otp_tries: 0,
      term_url: null,
      md: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(),
      completed_at: null,
      pares_used_at: null,
    })
    .execute();
  return {
    status: 'PENDING_AUTHENTICATION',
    threeDsVersion: THREE_DS_VERSION,
    acsUrl: `${ctx.publicUrl}/acs/challenge`,
    pareq: encodePareq(ref),
    authenticationTransactionId: id,
  };
}

export async function findAuthByRef(ctx: SandboxContext, ref: string): Promise<AuthRow | null> {
  return (
    (await ctx.db
      .selectFrom('three_ds_auths')
      .selectAll()
      .where('pareq_ref', '=', ref)
      .executeTakeFirst()) ?? null
  );
}

export function isExpired(ctx: SandboxContext, auth: AuthRow): boolean {
  return Date.parse(auth.expires_at) <= ctx.clock.now().getTime();
}

/** Remembers where the ACS must post its answer (first challenge page view wins). */
export async function bindTermUrl(
  ctx: SandboxContext,
  auth: AuthRow,
  termUrl: string,
  md: string,
): Promise<AuthRow> {
  if (auth.term_url !== null) return auth;
  await ctx.db
    .updateTable('three_ds_auths')
    .set({ term_url: termUrl, md })
    .where('id', '=', auth.id)
    .where('term_url', 'is', null)
    .execute();
  return (await findAuthByRef(ctx, auth.pareq_ref)) ?? auth;
}

export type OtpOutcome =
  | { kind: 'retry'; triesLeft: number }
  | { kind: 'done'; pares: string; result: ParesResult; auth: AuthRow };

/**
 * One ACS form submission: `cancel`, or an OTP. `1234` authenticates (the always-failing
 * card fails anyway); a wrong OTP may be retried until three wrong ones fail the
 * authentication. The decision is final and stored; its PaRes is returned.
 */
export async function submitOtp(
  ctx: SandboxContext,
  auth: AuthRow,
  action: 'submit' | 'cancel',
  otp: string,
): Promise<OtpOutcome> {
  let result: ParesResult;
  let tries = auth.otp_tries;
  if (action === 'cancel') {
    result = 'C';
  } else if (constantTimeEqual(otp, SANDBOX_OTP)) {
    result = auth.behaviour === 'challenge_fail' ? 'N' : 'Y';
  } else {
    // Counted in the store, not from the row this request read: wrong codes sent at once
    // each count, so three of them fail the authentication however they interleave.
    const counted = await ctx.db
      .updateTable('three_ds_auths')
      .set((eb) => ({ otp_tries: eb('otp_tries', '+', 1) }))
      .where('id', '=', auth.id)
      .where('status', '=', 'pending')
      .returning('otp_tries')
      .executeTakeFirst();
    if (!counted) return alreadyDecided(ctx, auth);
    tries = counted.otp_tries;
    if (tries < MAX_OTP_TRIES) return { kind: 'retry', triesLeft: MAX_OTP_TRIES - tries };
    result = 'N';
  }
  const status = result === 'Y' ? 'succeeded' : result === 'C' ? 'canceled' : 'failed';
  const updated = await ctx.db
    .updateTable('three_ds_auths')
    .set({ status, otp_tries: tries, completed_at: ctx.clock.now().toISOString() })
    .where('id', '=', auth.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return alreadyDecided(ctx, auth);
  return {
    kind: 'done',
    result,
    pares: signPares(paymentsState(ctx).paresSecret, auth.id, result),
    auth: { ...auth, status, otp_tries: tries },
  };
}

/** A concurrent submission decided first: answer what was decided. */
async function alreadyDecided(ctx: SandboxContext, auth: AuthRow): Promise<OtpOutcome> {
  const current = (await findAuthByRef(ctx, auth.pareq_ref)) ?? auth;
  return { kind: 'done', ...decided(ctx, current), auth: current };
}

/** The PaRes of an already decided authentication. */
export function decided(
  ctx: SandboxContext,
  auth: AuthRow,
): { pares: string; result: ParesResult } {
  const result: ParesResult =
    auth.status === 'succeeded' ? 'Y' : auth.status === 'canceled' ? 'C' : 'N';
  return { result, pares: signPares(paymentsState(ctx).paresSecret, auth.id, result) };
}

const bad = (tag: string, why: string): ApiAnswer => ({
  status: 400,
  body: [{ tag, description: `${tag}: ${why}` }] satisfies ErrorItem[],
});

/**
 * `POST /v1/payments/3ds/validate`: completes a challenged payment. The PaRes must be genuine,
 * unused and of this very authentication; the amount must match; the fresh card must be the
 * card that was authenticated. A failed or canceled authentication answers `400 3DS Fail`.
 */
export async function validate3ds(
  ctx: SandboxContext,
  client: SandboxClient,
  body: Validate3dsRequest,
): Promise<ApiAnswer> {
  const state = paymentsState(ctx);
  const pares = verifyPares(state.paresSecret, body.pares);
  if (!pares) return bad('pares', 'is not a PaRes issued by this ACS');
  if (pares.authId !== body.authenticationTransactionId) {
    return bad('pares', 'belongs to another authentication');
  }
  const auth = await ctx.db
    .selectFrom('three_ds_auths')
    .selectAll()
    .where('id', '=', body.authenticationTransactionId)
    .where('user_name', '=', client.userName)
    .executeTakeFirst();
  if (!auth) return bad('authenticationTransactionId', 'unknown authentication');
  if (auth.pares_used_at !== null) return bad('pares', 'was already used');
  if (auth.status === 'pending') return bad('pares', 'the authentication is not complete');
  if (isExpired(ctx, auth)) return bad('authenticationTransactionId', 'the authentication expired');
  if (body.payment.amount !== auth.amount) {
    return bad('payment.amount', 'does not match the authenticated amount');
  }
  if (body.payment.installments !== auth.installments) {
    return bad('payment.installments', 'does not match the authenticated payment');
  }
  // The same rule as the 3DS payment (avista/debito ⇔ 1 installment, lojista ⇔ 2 or more).
  const productRule = checkProductType(
    'debit',
    body.payment.productType,
    body.payment.installments,
  );
  if (productRule) return { status: 400, body: [productRule] };
  const card = await resolvePaymentCard(ctx, client.userName, body.cardInfo);
  if (!card.ok) return { status: 400, body: card.items };
  const fingerprint = panFingerprint(state.cardFingerprintKey, card.card.identity);
  if (!auth.pan_fingerprint || !constantTimeEqual(fingerprint, auth.pan_fingerprint)) {
    return bad('cardInfo', 'is not the card that was authenticated');
  }
  const used = await ctx.db
    .updateTable('three_ds_auths')
    .set({ pares_used_at: ctx.clock.now().toISOString() })
    .where('id', '=', auth.id)
    .where('pares_used_at', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) !== 1) return bad('pares', 'was already used');
  if (pares.result !== 'Y') {
    return { status: 400, body: threeDsFailItems(auth.brand) };
  }
  if (auth.internal_error) return { status: 500, body: INTERNAL_ERROR_ITEMS };
  const payment = await recordAuthorization(ctx, {
    paymentId: await pendingPaymentId(ctx, auth.id),
    client: findClient(ctx, auth.user_name) ?? client,
    transactionType: 'debit',
    productType: auth.product_type,
    installments: auth.installments,
    amount: auth.amount,
    brand: auth.brand,
    maskedNumber: card.card.maskedNumber,
    referenceTransaction: auth.reference_transaction,
    configSplit: null,
    billingId: null,
    returnCode: auth.return_code as ReturnCode,
  });
  return {
    status: 200,
    body: { paymentAuthorization: authorizationBody(payment), threeDs: threeDsSuccess(auth.brand) },
  };
}
