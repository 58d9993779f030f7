/**
 * The checkout's shared contract: the shapes the BFF answers and accepts, as the widget, the
 * demo and the BFF all see them. Types and constants only — no runtime dependency, no import
 * from outside `contract/` — so the widget may import it without bundling a byte of the
 * server. The BFF's zod schemas (`server/bff/checkout-api.ts`) validate these shapes and are
 * checked against them at compile time, so the two cannot drift.
 */
import type { FailureCode } from './failure-codes';

export { FAILURE_CODES, type FailureCode } from './failure-codes';

export const PAYMENT_METHODS = ['credit', 'debit'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** EMV 3DS challenge window sizes: 01 250×400, 02 390×400, 03 500×600, 04 600×400, 05 full. */
export const CHALLENGE_WINDOW_SIZES = ['01', '02', '03', '04', '05'] as const;
export type ChallengeWindowSize = (typeof CHALLENGE_WINDOW_SIZES)[number];

/** The card brands the checkout accepts, as the frame detects them. */
export const PAY_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'] as const;
export type PayBrand = (typeof PAY_BRANDS)[number];

export type DocumentType = 'cpf' | 'cnpj';

// ---------------------------------------------------------------- merchant API (server to server)

/** `POST /v1/checkout-sessions` (Authorization: Bearer <merchant secret>). */
export interface CreateSessionBody {
  /** Cents; required unless `planId` is given. */
  amount?: number | undefined;
  /** The merchant page origin that will embed the frame; one of BFF_ALLOWED_ORIGINS. */
  origin: string;
  methods?: PaymentMethod[] | undefined;
  maxInstallments?: number | undefined;
  referenceTransaction?: string | undefined;
  customer?:
    | {
        firstName?: string | undefined;
        lastName?: string | undefined;
        email?: string | undefined;
        documentType?: DocumentType | undefined;
        documentNumber?: string | undefined;
      }
    | undefined;
  /** A recurrence plan id: the session subscribes instead of charging an amount. */
  planId?: string | undefined;
  expiresInSeconds?: number | undefined;
  /**
   * The merchant's own keys and values (at most 20 keys of up to 40 characters, values up to
   * 500), returned with the session everywhere and in its events. Never card data.
   */
  metadata?: Record<string, string> | undefined;
}

/**
 * `pending`: a payment attempt's outcome is not known yet (the gateway timed out or failed
 * after the request was sent, or the BFF stopped mid-call); the BFF is confirming it with the
 * gateway. No new payment is accepted meanwhile. It ends `succeeded` once the payment is
 * proven, and goes back to `open` (or `expired`/`failed`) only when it certainly did not
 * happen (README: "Unknown payments").
 */
export const SESSION_STATUSES = [
  'open',
  'processing',
  'challenge',
  'pending',
  'succeeded',
  'failed',
  'expired',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface CreatedSession {
  id: string;
  clientSecret: string;
  status: SessionStatus;
  amount: number;
  currency: 'BRL';
  expiresAt: string;
  /** The merchant's metadata, as given (`{}` when none). */
  metadata: Record<string, string>;
}

// ---------------------------------------------------------------- checkout API (frame → BFF)
// Every call carries `Authorization: Bearer <clientSecret>`; never a secret in a URL.

/** `GET /checkout/api/session`: what the frame may know of its session. */
export interface PublicSession {
  id: string;
  status: SessionStatus;
  amount: number;
  currency: 'BRL';
  methods: PaymentMethod[];
  maxInstallments: number;
  attemptsLeft: number;
  expiresAt: string;
  plan?: SessionPlan;
  /** Set once the session has ended. */
  outcome?: PayResult;
  /** While `status` is `challenge`: the bank step waiting, so a reloaded frame can reopen it. */
  challenge?: PendingChallenge;
}

/** The recurrence plan a subscription checkout shows (`PublicSession.plan`). */
export interface SessionPlan {
  id: string;
  name: string;
  /** Cents billed each installment. */
  amount: number;
  intervalDays: number;
  description: string;
  /**
   * Days before the first charge (0: charged at once). Absent on a session made before the
   * BFF kept it: nothing is said of a trial then.
   */
  trialDays?: number;
  /**
   * How many times it is billed (0: until canceled; a Custom plan ends after its count).
   * Absent on a session made before the BFF kept it.
   */
  installments?: number;
}

/**
 * A subscription that started with a trial: nothing was charged at checkout; the gateway
 * bills the first installment on `firstChargeOn` (`YYYY-MM-DD`, a São Paulo calendar day).
 */
export interface SubscriptionTrial {
  days: number;
  firstChargeOn: string;
}

export interface PendingChallenge {
  challengeId: string;
  challengeUrl: string;
  windowSize: ChallengeWindowSize;
  /** The bank has answered: only the validate call (`challenge/complete`) is left. */
  answered: boolean;
}

/** Device data the frame reads for 3DS (DESIGN §3); the BFF adds Accept, IP and User-Agent. */
export interface FrameDeviceInfo {
  language: string;
  javaEnabled: boolean;
  colorDepth: number;
  screenHeight: number;
  screenWidth: number;
  timezoneOffset: number;
  userAgent: string;
}

/** `POST /checkout/api/pay` with an `Idempotency-Key` header (8–100 chars). */
export interface PayBody {
  method: PaymentMethod;
  installments: number;
  /** base64 RSA-OAEP ciphertext of the DESIGN §3 plaintext. */
  encryptedCard: string;
  cardholderName: string;
  brand?: PayBrand | undefined;
  /** The number's last four digits, for the receipt (the full number travels encrypted). */
  last4?: string | undefined;
  document?: { type: DocumentType; number: string } | undefined;
  deviceInfo: FrameDeviceInfo;
  /** Anti-fraud fingerprint session id made by the frame (a UUID). */
  fingerprint: string;
  challengeWindowSize?: ChallengeWindowSize | undefined;
}

/** `POST /checkout/api/challenge/complete`: a fresh ciphertext for the validate call. */
export interface ChallengeCompleteBody {
  challengeId: string;
  encryptedCard: string;
}

/** `POST /checkout/api/challenge/cancel`. */
export interface ChallengeCancelBody {
  challengeId: string;
  reason?: 'closed' | 'timeout' | undefined;
}

export type PayResult =
  | {
      status: 'succeeded';
      payment: {
        paymentId: string;
        authorizationCode: string;
        /** Cents charged by this payment: 0 for a subscription started on a trial. */
        amount: number;
        installments: number;
        method: PaymentMethod;
        /** Set for a subscription checkout. */
        subscriptionId?: string;
        /** Set when the subscription began with a trial: nothing was charged yet. */
        trial?: SubscriptionTrial;
      };
    }
  | {
      status: 'challenge';
      challengeId: string;
      /** A BFF page for the challenge iframe; it posts PaReq/MD/TermUrl to the ACS. */
      challengeUrl: string;
      windowSize: ChallengeWindowSize;
    }
  | {
      status: 'failed';
      error: { code: FailureCode; retryable: boolean };
      attemptsLeft: number;
    }
  /**
   * The outcome is not known yet (timeout, 5xx or crash after the request left): the BFF is
   * confirming it; read `GET /checkout/api/session` until it is `succeeded`, `open` or ended.
   */
  | { status: 'pending' };

/** Message the TermUrl page posts to the host window (merchant origin as exact target). */
export interface ChallengeAnsweredMessage {
  type: 'challenge-answered';
  challengeId: string;
}
