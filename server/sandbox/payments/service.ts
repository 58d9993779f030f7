import type {
  CreditPaymentRequest,
  Debit3dsPaymentResponse,
  DeviceInfo,
  Split,
} from '../../gateway/schemas/payments';
import type { ErrorItem } from '../../lib/http';
import type { SandboxClient } from '../clients';
import type { SandboxContext } from '../context';
import { reservePendingPayment } from '../three-ds/pending-payments';
import { createChallenge } from '../three-ds/service';
import {
  INTERNAL_ERROR_ITEMS,
  authorizationBody,
  recordAuthorization,
  threeDsFailItems,
  threeDsSuccess,
} from './authorize';
import { applyOverride } from './outcomes';
import { resolvePaymentCard } from './payment-card';
import type { CardInput } from './resolve-card';
import { checkDeviceInfoFor3ds, checkProductType, checkSplits } from './rules';
import { paymentsState } from './state';

/** A route's answer: the status and the JSON body. */
export interface ApiAnswer {
  status: 200 | 400 | 500;
  body: unknown;
}

const bad = (items: ErrorItem[]): ApiAnswer => ({ status: 400, body: items });

/** The Debit/credit body parts the payment flows share, already shape-validated. */
interface PaymentBody {
  payment: { amount: number; productType: string; installments: number };
  cardInfo: CardInput;
  referenceTransaction?: string | undefined;
  configSplit?: Split[] | undefined;
}

/** Checks the business rules and the card; yields the card facts or the refusal. */
async function prepare(
  ctx: SandboxContext,
  client: SandboxClient,
  transactionType: 'credit' | 'debit',
  body: PaymentBody,
) {
  const rule = checkProductType(
    transactionType,
    body.payment.productType,
    body.payment.installments,
  );
  if (rule) return { ok: false as const, answer: bad([rule]) };
  const splitErrors = checkSplits(body.configSplit);
  if (splitErrors.length) return { ok: false as const, answer: bad(splitErrors) };
  const card = await resolvePaymentCard(ctx, client.userName, body.cardInfo);
  if (!card.ok) return { ok: false as const, answer: bad(card.items) };
  const behaviour = applyOverride(card.card.behaviour, paymentsState(ctx).outcomes.take());
  return { ok: true as const, card: card.card, brand: card.card.brand, behaviour };
}

/** `POST /v1/payments`: credit with anti-fraud. No 3DS, so only the authorization applies. */
export async function processCredit(
  ctx: SandboxContext,
  client: SandboxClient,
  body: CreditPaymentRequest,
): Promise<ApiAnswer> {
  const prep = await prepare(ctx, client, 'credit', body);
  if (!prep.ok) return prep.answer;
  if (prep.behaviour.internalError) return { status: 500, body: INTERNAL_ERROR_ITEMS };
  const payment = await recordAuthorization(ctx, {
    client,
    transactionType: 'credit',
    productType: body.payment.productType,
    installments: body.payment.installments,
    amount: body.payment.amount,
    brand: prep.brand,
    maskedNumber: prep.card.maskedNumber,
    referenceTransaction: body.referenceTransaction ?? null,
    configSplit: body.configSplit ?? null,
    billingId: null,
    returnCode: prep.behaviour.returnCode,
    urlCallBack: body.urlCallBack ?? null,
  });
  return { status: 200, body: { paymentAuthorization: authorizationBody(payment) } };
}

export type DebitBody = PaymentBody & { deviceInfo?: Partial<DeviceInfo> | undefined };

/**
 * `POST /v1/payments/3ds`: debit with 3DS. Frictionless cards are authorized at once; a
 * frictionless failure is a `400 3DS Fail`; challenge cards answer `PENDING_AUTHENTICATION`
 * with the ACS URL, PaReq and authentication id beside a `paymentAuthorization` that waits for
 * it (its paymentId is the one validate authorizes).
 */
export async function processDebit3ds(
  ctx: SandboxContext,
  client: SandboxClient,
  body: DebitBody,
): Promise<ApiAnswer> {
  const device = checkDeviceInfoFor3ds(body.deviceInfo);
  if (device.length) return bad(device);
  const prep = await prepare(ctx, client, 'debit', body);
  if (!prep.ok) return prep.answer;
  const { behaviour, brand, card } = prep;
  if (behaviour.internalError && behaviour.threeDs === 'none') {
    return { status: 500, body: INTERNAL_ERROR_ITEMS };
  }
  if (behaviour.threeDs === 'frictionless_fail') {
    return { status: 400, body: threeDsFailItems(brand) };
  }
  if (behaviour.threeDs === 'challenge' || behaviour.threeDs === 'challenge_fail') {
    const threeDs = await createChallenge(ctx, client, {
      amount: body.payment.amount,
      productType: body.payment.productType,
      installments: body.payment.installments,
      brand,
      cardIdentity: card.identity,
      maskedNumber: card.maskedNumber,
      behaviour: behaviour.threeDs,
      returnCode: behaviour.returnCode,
      internalError: behaviour.internalError === true,
      referenceTransaction: body.referenceTransaction ?? null,
    });
    // The spec: every 200 carries both objects. The authorization waits for the challenge.
    const paymentAuthorization = await reservePendingPayment(ctx, {
      authenticationId: threeDs.authenticationTransactionId!,
      amount: body.payment.amount,
      referenceTransaction: body.referenceTransaction ?? null,
    });
    const answer: Debit3dsPaymentResponse = { paymentAuthorization, threeDs };
    return { status: 200, body: answer };
  }
  if (behaviour.internalError) return { status: 500, body: INTERNAL_ERROR_ITEMS };
  const payment = await recordAuthorization(ctx, {
    client,
    transactionType: 'debit',
    productType: body.payment.productType,
    installments: body.payment.installments,
    amount: body.payment.amount,
    brand,
    maskedNumber: card.maskedNumber,
    referenceTransaction: body.referenceTransaction ?? null,
    configSplit: null,
    billingId: null,
    returnCode: behaviour.returnCode,
  });
  const answer: Debit3dsPaymentResponse = {
    paymentAuthorization: authorizationBody(payment),
    threeDs: threeDsSuccess(brand),
  };
  return { status: 200, body: answer };
}
