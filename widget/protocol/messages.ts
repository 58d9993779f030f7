/**
 * Messages between the host element (merchant page), the frame app and the challenge pages,
 * with hand-written type guards (no zod in the bundles). Every guard rejects unknown types,
 * missing fields and oversized strings: a message is untrusted input.
 *
 * Handshake: the frame posts `frame-hello` to its parent (no data worth hiding); the host
 * checks origin and source and answers `init` with a `MessageChannel` port, targeting the
 * exact BFF origin. Everything after that travels over the port.
 */
import type {
  ChallengeAnsweredMessage,
  ChallengeWindowSize,
  FailureCode,
  PaymentMethod,
  SubscriptionTrial,
} from '../../contract/checkout';
import { FAILURE_CODES } from '../../contract/failure-codes';
import type { CardBrand } from '../card/brand';
import type { Locale, Theme } from './constants';
import { LOCALES, THEME_PROPERTIES } from './constants';

export const PROTOCOL = 'card-checkout/1';

// ------------------------------------------------------------------ window messages

/** Frame → parent window, as soon as the frame runs. */
export interface FrameHelloMessage {
  protocol: typeof PROTOCOL;
  type: 'frame-hello';
}

/** Host → frame window, with one port transferred. */
export interface InitMessage {
  protocol: typeof PROTOCOL;
  type: 'init';
  clientSecret: string;
  locale: Locale;
  theme: Theme;
  submitLabel?: string;
  hideButton: boolean;
  challengeWindowSize: ChallengeWindowSize;
}

// ------------------------------------------------------------------ port: host → frame

export type HostToFrameMessage =
  | { type: 'submit' }
  | { type: 'theme'; theme: Theme }
  | { type: 'viewport'; challengeWindowSize: ChallengeWindowSize }
  | { type: 'challenge-answered'; challengeId: string }
  | { type: 'challenge-closed'; challengeId: string; reason: 'closed' | 'timeout' }
  /** The page replaced an expired session: the frame goes on with it, keeping what was typed. */
  | { type: 'renew'; clientSecret: string };

// ------------------------------------------------------------------ port: frame → host

export type FieldName = 'cardNumber' | 'cardholderName' | 'expiry' | 'securityCode' | 'document';
export type FieldState = { valid: boolean; empty: boolean };

export interface SucceededPayment {
  paymentId: string;
  authorizationCode: string;
  /** Cents charged: 0 for a subscription started on a trial. */
  amount: number;
  subscriptionId?: string;
  /** A subscription started on a trial: nothing charged yet. */
  trial?: SubscriptionTrial;
}

export type FrameToHostMessage =
  | { type: 'ready' }
  | { type: 'resize'; height: number }
  | {
      type: 'change';
      brand: CardBrand | null;
      complete: boolean;
      fields: Record<FieldName, FieldState>;
    }
  | { type: 'submit' }
  | {
      type: 'challenge';
      challengeId: string;
      challengeUrl: string;
      windowSize: ChallengeWindowSize;
    }
  | { type: 'succeeded'; payment: SucceededPayment; method: PaymentMethod }
  | { type: 'failed'; code: FailureCode; message: string; retryable: boolean };

// ------------------------------------------------------------------ guards

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown, max = 2048): v is string => typeof v === 'string' && v.length <= max;
const isId = (v: unknown): v is string => isStr(v, 100) && v.length > 0;
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isTrial = (v: unknown): v is SubscriptionTrial =>
  isObj(v) &&
  Number.isInteger(v.days) &&
  typeof v.firstChargeOn === 'string' &&
  /^\d{4}-\d{2}-\d{2}$/.test(v.firstChargeOn);
const isWindowSize = (v: unknown): v is ChallengeWindowSize =>
  v === '01' || v === '02' || v === '03' || v === '04' || v === '05';
const BRANDS: readonly unknown[] = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'];
const FAILURES: readonly unknown[] = FAILURE_CODES;
const FIELDS: readonly FieldName[] = [
  'cardNumber',
  'cardholderName',
  'expiry',
  'securityCode',
  'document',
];

/**
 * A theme value may not break out of its declaration nor fetch anything: no `;{}<>\`,
 * no `url(`, at most 200 characters. Unknown keys are dropped.
 */
export function sanitizeTheme(v: unknown): Theme {
  const theme: Theme = {};
  if (!isObj(v)) return theme;
  for (const key of THEME_PROPERTIES) {
    const value = v[key];
    if (isStr(value, 200) && !/[;{}<>\\]|url\(/i.test(value) && value.trim() !== '') {
      theme[key] = value.trim();
    }
  }
  return theme;
}

export function isFrameHello(v: unknown): v is FrameHelloMessage {
  return isObj(v) && v.protocol === PROTOCOL && v.type === 'frame-hello';
}

export function isInitMessage(v: unknown): v is InitMessage {
  return (
    isObj(v) &&
    v.protocol === PROTOCOL &&
    v.type === 'init' &&
    isStr(v.clientSecret, 200) &&
    LOCALES.includes(v.locale as Locale) &&
    isObj(v.theme) &&
    (v.submitLabel === undefined || isStr(v.submitLabel, 60)) &&
    isBool(v.hideButton) &&
    isWindowSize(v.challengeWindowSize)
  );
}

export function isHostToFrameMessage(v: unknown): v is HostToFrameMessage {
  if (!isObj(v)) return false;
  switch (v.type) {
    case 'submit':
      return true;
    case 'theme':
      return isObj(v.theme);
    case 'viewport':
      return isWindowSize(v.challengeWindowSize);
    case 'challenge-answered':
      return isId(v.challengeId);
    case 'challenge-closed':
      return isId(v.challengeId) && (v.reason === 'closed' || v.reason === 'timeout');
    case 'renew':
      return isStr(v.clientSecret, 200) && v.clientSecret.length > 0;
    default:
      return false;
  }
}

function isFieldStates(v: unknown): v is Record<FieldName, FieldState> {
  return (
    isObj(v) &&
    FIELDS.every((f) => {
      const s = v[f];
      return isObj(s) && isBool(s.valid) && isBool(s.empty);
    })
  );
}

export function isFrameToHostMessage(v: unknown): v is FrameToHostMessage {
  if (!isObj(v)) return false;
  switch (v.type) {
    case 'ready':
    case 'submit':
      return true;
    case 'resize':
      return typeof v.height === 'number' && Number.isFinite(v.height) && v.height >= 0;
    case 'change':
      return (
        (v.brand === null || BRANDS.includes(v.brand)) &&
        isBool(v.complete) &&
        isFieldStates(v.fields)
      );
    case 'challenge':
      return isId(v.challengeId) && isStr(v.challengeUrl) && isWindowSize(v.windowSize);
    case 'succeeded': {
      const p = v.payment;
      return (
        (v.method === 'credit' || v.method === 'debit') &&
        isObj(p) &&
        isStr(p.paymentId, 100) &&
        isStr(p.authorizationCode, 100) &&
        typeof p.amount === 'number' &&
        (p.subscriptionId === undefined || isStr(p.subscriptionId, 100)) &&
        (p.trial === undefined || isTrial(p.trial))
      );
    }
    case 'failed':
      return FAILURES.includes(v.code) && isStr(v.message, 500) && isBool(v.retryable);
    default:
      return false;
  }
}

/** The TermUrl page's signal; the host still checks the sender's origin. */
export function isChallengeAnswered(v: unknown): v is ChallengeAnsweredMessage {
  return isObj(v) && v.type === 'challenge-answered' && isId(v.challengeId);
}
