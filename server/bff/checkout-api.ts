/**
 * The BFF's validation of the checkout contract (`contract/checkout.ts`): the zod schemas for
 * what the merchant server and the frame send. The shapes themselves live in `contract/`
 * (types and constants, no runtime dependency) for the widget and the demo; each schema is
 * checked against its contract type at compile time (bottom of this file).
 */
import { z } from 'zod';
import type * as Contract from '../../contract/checkout';
import { CHALLENGE_WINDOW_SIZES, PAY_BRANDS, PAYMENT_METHODS } from '../../contract/checkout';

export {
  CHALLENGE_WINDOW_SIZES,
  FAILURE_CODES,
  PAY_BRANDS,
  PAYMENT_METHODS,
  SESSION_STATUSES,
} from '../../contract/checkout';
export type {
  ChallengeAnsweredMessage,
  ChallengeCancelBody,
  ChallengeCompleteBody,
  ChallengeWindowSize,
  CreatedSession,
  CreateSessionBody,
  FailureCode,
  FrameDeviceInfo,
  PayBody,
  PaymentMethod,
  PayResult,
  PendingChallenge,
  PublicSession,
  SessionPlan,
  SessionStatus,
  SubscriptionTrial,
} from '../../contract/checkout';

export const PaymentMethodSchema = z.enum(PAYMENT_METHODS);
export const ChallengeWindowSizeSchema = z.enum(CHALLENGE_WINDOW_SIZES);

// ---------------------------------------------------------------- merchant API (server to server)

/** The merchant's `metadata`: at most 20 string keys (≤ 40 chars) with string values (≤ 500). */
export const MetadataSchema = z
  .record(
    z
      .string()
      .min(1, { error: 'keys must not be empty' })
      .max(40, { error: 'keys must be at most 40 characters' }),
    z
      .string({ error: 'values must be strings' })
      .max(500, { error: 'values must be at most 500 characters' }),
  )
  .refine((m) => Object.keys(m).length <= 20, { error: 'at most 20 keys' });

/**
 * Half of a UTF-16 surrogate pair on its own: not a character. A UTF-8 store (PostgreSQL, the
 * gateway's) keeps U+FFFD for it, so a reference holding one is not what the ledger returns.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `POST /v1/checkout-sessions` (Authorization: Bearer <merchant secret>). */
export const CreateSessionBodySchema = z
  .object({
    /** Cents; required unless `planId` is given. */
    amount: z.number().int().min(1).max(9_999_999_999).optional(),
    /** The merchant page origin that will embed the frame; one of BFF_ALLOWED_ORIGINS. */
    origin: z.string().url(),
    methods: z.array(PaymentMethodSchema).min(1).max(2).optional(),
    maxInstallments: z.number().int().min(1).max(12).optional(),
    referenceTransaction: z
      .string()
      .min(1)
      .max(50)
      .refine((s) => !LONE_SURROGATE.test(s), {
        error: 'must be well-formed Unicode text (half a character found)',
      })
      .optional(),
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
    metadata: MetadataSchema.optional(),
  })
  .strict();

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

/** `POST /checkout/api/pay` with an `Idempotency-Key` header (8–100 chars). */
export const PayBodySchema = z
  .object({
    method: PaymentMethodSchema,
    installments: z.number().int().min(1).max(12),
    /** base64 RSA-OAEP ciphertext of the DESIGN §3 plaintext. */
    encryptedCard: z.string().min(1).max(2048),
    cardholderName: z.string().trim().min(1).max(30),
    brand: z.enum(PAY_BRANDS).optional(),
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

/** `POST /checkout/api/challenge/complete`: a fresh ciphertext for the validate call. */
export const ChallengeCompleteBodySchema = z
  .object({ challengeId: z.string().min(1).max(100), encryptedCard: z.string().min(1).max(2048) })
  .strict();

/** `POST /checkout/api/challenge/cancel`. */
export const ChallengeCancelBodySchema = z
  .object({
    challengeId: z.string().min(1).max(100),
    reason: z.enum(['closed', 'timeout']).optional(),
  })
  .strict();

// ---------------------------------------------------------------- schemas ≡ contract

/** True only when A and B are identical types (keys, optionality, nested shapes). */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// A schema that accepts or yields anything the contract does not say fails to compile here.
export const SCHEMAS_MATCH_CONTRACT: [
  Same<z.infer<typeof CreateSessionBodySchema>, Contract.CreateSessionBody>,
  Same<z.infer<typeof FrameDeviceInfoSchema>, Contract.FrameDeviceInfo>,
  Same<z.infer<typeof PayBodySchema>, Contract.PayBody>,
  Same<z.infer<typeof ChallengeCompleteBodySchema>, Contract.ChallengeCompleteBody>,
  Same<z.infer<typeof ChallengeCancelBodySchema>, Contract.ChallengeCancelBody>,
  Same<z.infer<typeof PaymentMethodSchema>, Contract.PaymentMethod>,
  Same<z.infer<typeof ChallengeWindowSizeSchema>, Contract.ChallengeWindowSize>,
] = [true, true, true, true, true, true, true];
