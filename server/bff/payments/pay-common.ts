import type { CardInfo, Customer, DeviceInfo } from '../../gateway/schemas';
import type { ErrorItem } from '../../lib/http';
import type { PayBody, PayResult } from '../checkout-api';
import type { Result, SessionPlan } from '../sessions/service';
import type { SessionRow } from '../sessions/store';

/** An answer to the frame: a PayResult (200) or an error array with its status. */
export type StepAnswer =
  { ok: true; result: PayResult } | { ok: false; status: 400 | 404 | 409; items: ErrorItem[] };

export const refuse = (status: 400 | 404 | 409, tag: string, description: string): StepAnswer => ({
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

/** The plan a plan session showed the shopper (kept when it was created); null for a cart. */
export function shownPlan(row: Pick<SessionRow, 'plan_json'>): SessionPlan | null {
  return row.plan_json ? (JSON.parse(row.plan_json) as SessionPlan) : null;
}

/** The terms a plan bills by: what a shopper must have been shown before it subscribes. */
export type PlanTerms = Pick<SessionPlan, 'amount' | 'intervalDays' | 'installments' | 'trialDays'>;

/**
 * Whether a plan read now (`loadPlan`) is the one the session showed: Active (`loadPlan`
 * refuses any other), on the terms it showed (`termsAsShown`). The gateway bills the plan as
 * it is now.
 */
export function planAsShown(row: SessionRow, plan: Result<SessionPlan>): boolean {
  return plan.ok && termsAsShown(row, plan.value);
}

/**
 * Whether `terms` (a plan's now, or those a subscription bills) are the ones the session
 * showed: the same amount, interval, number of charges and trial. A session made before the
 * BFF kept the number of charges and the trial showed neither: they are not compared, and it
 * pays as it did.
 */
export function termsAsShown(row: SessionRow, terms: PlanTerms): boolean {
  const shown = shownPlan(row);
  if (!shown) return false;
  return (
    terms.amount === row.amount &&
    terms.intervalDays === shown.intervalDays &&
    (shown.installments === undefined || shown.installments === terms.installments) &&
    (shown.trialDays === undefined || shown.trialDays === terms.trialDays)
  );
}

export const THREE_DS_PENDING = 'PENDING_AUTHENTICATION';

/** The spec's size of `referenceTransaction`. */
const REFERENCE_MAX = 50;

/**
 * The `referenceTransaction` sent to the gateway for one attempt: the merchant's reference
 * (cut to fit) and the attempt id, `ORDER-123/pa_…`, or the attempt id alone. It names one
 * attempt, so a sale found in the reconciliation ledger by it belongs to that attempt only
 * (two sessions may share a merchant reference and an amount).
 */
export function paymentReferenceOf(row: SessionRow, attemptId: string): string {
  const ref = row.reference_transaction;
  if (!ref) return attemptId;
  return `${cutWhole(ref, REFERENCE_MAX - attemptId.length - 1)}/${attemptId}`;
}

/**
 * `text` cut to at most `max` UTF-16 units (the spec's characters), never inside a surrogate
 * pair: half an emoji is an ill-formed string, which a UTF-8 store (PostgreSQL, the gateway's)
 * keeps as U+FFFD, so the reference stored would no longer be the one the ledger returns and a
 * charged attempt would be declared not to have happened.
 */
function cutWhole(text: string, max: number): string {
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * A subscription's `orderNumber` (10 characters at most): the last ten of the attempt id's
 * random part. The gateway charges its billings with it as their reference, so the first
 * billing's ledger row and notifications lead back to the attempt.
 */
export function orderNumberOf(attemptId: string): string {
  return attemptId.slice(-10);
}

export function customerOf(
  row: SessionRow,
  body: PayBody,
  facts: RequestFacts,
): Customer | undefined {
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
  const accept = cutWhole(frameAccept ?? facts.accept ?? '*/*', 255);
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
    userAgentBrowserValue: cutWhole(facts.userAgent ?? d.userAgent, 255),
  };
  if (facts.clientIp) info.ipAddress = facts.clientIp.slice(0, 48);
  return info;
}

export function cardInfoOf(
  encryptedCard: string,
  cardholderName: string,
  brand?: string | null,
): CardInfo {
  const card: CardInfo = { encryptedCard, cardholderName };
  if (brand) card.brand = brand as NonNullable<CardInfo['brand']>;
  return card;
}
