/**
 * The contract between the BFF and its callers: the merchant server (sessions API) and the
 * frame app `<card-form>` (checkout API). The BFF validates with these schemas; the widget
 * imports the types only (`import type`), so zod stays out of its bundle.
 */
import { z } from 'zod';

export const PAYMENT_METHODS = ['credit', 'debit'] as const;
export const PaymentMethodSchema = z.enum(PAYMENT_METHODS);
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

/** EMV 3DS challenge window sizes: 01 250×400, 02 390×400, 03 500×600, 04 600×400, 05 full. */
export const CHALLENGE_WINDOW_SIZES = ['01', '02', '03', '04', '05'] as const;
export const ChallengeWindowSizeSchema = z.enum(CHALLENGE_WINDOW_SIZES);
export type ChallengeWindowSize = z.infer<typeof ChallengeWindowSizeSchema>;

// ---------------------------------------------------------------- merchant API (server to server)

/** `POST /v1/checkout-sessions` (Authorization: Bearer <merchant secret>). */
export const CreateSessionBodySchema = z
  .object({
    /** Cents; required unless `planId` is given. */
    amount: z.number().int().min(1).max(9_999_999_999).optional(),
    /** The merchant page origin that will embed the frame; one of BFF_ALLOWED_ORIGINS. */
    origin: z.string().url(),
    methods: z.array(PaymentMethodSchema).min(1).max(2).optional(),
    maxInstallments: z.number().int().min(1).max(12).optional(),
    referenceTransaction: z.string().min(1).max(50).optional(),
    customer: z
      .object({
        firstName: z.string().max(60).optional(),
        lastName: z.string().max(60).optional(),
        email: z.string().email().max(255).optional(),
        documentType: z.enum(['cpf', 'cnpj']).optional(),
        documentNumber: z
          .string()
          .regex(/^\d{11}$|^\d{14}$/)
          .optional(),
      })
      .strict()
      .optional(),
    /** A recurrence plan id: the session subscribes instead of charging an amount. */
    planId: z.string().min(1).max(36).optional(),
    expiresInSeconds: z.number().int().min(60).max(86_400).optional(),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBodySchema>;

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
  expiresAt: string;
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
  plan?: { id: string; name: string; amount: number; intervalDays: number; description: string };
  /** Set once the session has ended. */
  outcome?: PayResult;
  /** While `status` is `challenge`: the bank step waiting, so a reloaded frame can reopen it. */
  challenge?: PendingChallenge;
}

export interface PendingChallenge {
  challengeId: string;
  challengeUrl: string;
  windowSize: ChallengeWindowSize;
  /** The bank has answered: only the validate call (`challenge/complete`) is left. */
  answered: boolean;
}

/** Device data the frame reads for 3DS (DESIGN §3); the BFF adds Accept, IP and User-Agent. */
export const FrameDeviceInfoSchema = z
  .object({
    language: z.string().max(8),
    javaEnabled: z.boolean(),
    colorDepth: z.number().int().min(1).max(48),
    screenHeight: z.number().int().min(0).max(9999),
    screenWidth: z.number().int().min(0).max(9999),
    timezoneOffset: z.number().int().min(-999).max(9999),
    userAgent: z.string().max(255),
  })
  .strict();
export type FrameDeviceInfo = z.infer<typeof FrameDeviceInfoSchema>;

/** `POST /checkout/api/pay` with an `Idempotency-Key` header (8–100 chars). */
export const PayBodySchema = z
  .object({
    method: PaymentMethodSchema,
    installments: z.number().int().min(1).max(12),
    /** base64 RSA-OAEP ciphertext of the DESIGN §3 plaintext. */
    encryptedCard: z.string().min(1).max(2048),
    cardholderName: z.string().trim().min(1).max(30),
    brand: z.enum(['visa', 'mastercard', 'amex', 'elo', 'hipercard']).optional(),
    /** The number's last four digits, for the receipt (the full number travels encrypted). */
    last4: z
      .string()
      .regex(/^\d{4}$/, { error: 'must be the last 4 digits' })
      .optional(),
    document: z
      .object({ type: z.enum(['cpf', 'cnpj']), number: z.string().regex(/^\d{11}$|^\d{14}$/) })
      .strict()
      .optional(),
    deviceInfo: FrameDeviceInfoSchema,
    /** Anti-fraud fingerprint session id made by the frame (a UUID). */
    fingerprint: z.string().uuid(),
    challengeWindowSize: ChallengeWindowSizeSchema.optional(),
  })
  .strict();
export type PayBody = z.infer<typeof PayBodySchema>;

/** `POST /checkout/api/challenge/complete`: a fresh ciphertext for the validate call. */
export const ChallengeCompleteBodySchema = z
  .object({ challengeId: z.string().min(1).max(100), encryptedCard: z.string().min(1).max(2048) })
  .strict();
export type ChallengeCompleteBody = z.infer<typeof ChallengeCompleteBodySchema>;

/** `POST /checkout/api/challenge/cancel`. */
export const ChallengeCancelBodySchema = z
  .object({
    challengeId: z.string().min(1).max(100),
    reason: z.enum(['closed', 'timeout']).optional(),
  })
  .strict();
export type ChallengeCancelBody = z.infer<typeof ChallengeCancelBodySchema>;

import type { FailureCode } from './failure-codes';
export { FAILURE_CODES, type FailureCode } from './failure-codes';

export type PayResult =
  | {
      status: 'succeeded';
      payment: {
        paymentId: string;
        authorizationCode: string;
        amount: number;
        installments: number;
        method: PaymentMethod;
        /** Set for a subscription checkout. */
        subscriptionId?: string;
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
