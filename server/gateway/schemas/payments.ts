import { z } from 'zod';
import { decimal, guid, intDigits, reqStr, str } from './common';
import { httpUrl } from './webhooks';

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'] as const;
export const CardBrandSchema = z.enum(CARD_BRANDS);
export type CardBrand = z.infer<typeof CardBrandSchema>;

const digits = (min: number, max: number) =>
  z.string().regex(new RegExp(`^\\d{${min},${max}}$`), {
    error: min === max ? `must be ${min} digits` : `must be ${min} to ${max} digits`,
  });

/**
 * `cardInfo` of both payment bodies. The spec lists no plain card number field; like the card
 * vault (DESIGN §5) we accept `number` as the plain-text alternative to `encryptedCard`.
 * Which of them must be present is a business rule checked by the gateway, not the shape.
 */
export const CardInfoSchema = z.object({
  numberToken: str(64).min(1).optional(),
  cardholderName: reqStr(30),
  securityCode: digits(3, 4).optional(),
  brand: CardBrandSchema.optional(),
  expirationMonth: z
    .string()
    .regex(/^(0[1-9]|1[0-2])$/, { error: 'must be two digits 01 to 12' })
    .optional(),
  expirationYear: digits(2, 2).optional(),
  encryptedCard: str(2048).min(1, { error: 'must not be empty' }).optional(),
  number: digits(12, 19).optional(),
});
export type CardInfo = z.infer<typeof CardInfoSchema>;

export const DOCUMENT_TYPES = ['cpf', 'cnpj'] as const;

export const CustomerSchema = z.object({
  documentType: z.enum(DOCUMENT_TYPES).optional(),
  documentNumber: str(20).optional(),
  firstName: str(60).optional(),
  lastName: str(60).optional(),
  email: str(255).optional(),
  phoneNumber: str(15).optional(),
  mobilePhoneNumber: str(25).optional(),
  address: str(60).optional(),
  complement: str(60).optional(),
  city: str(50).optional(),
  state: str(2).optional(),
  zipCode: str(10).optional(),
  ipAddress: str(48).optional(),
  country: str(2).optional(),
});
export type Customer = z.infer<typeof CustomerSchema>;

export const SPLIT_TYPES = ['bruto', 'liquido'] as const;

export const SplitSchema = z.object({
  documentNumberBeneficiary: z
    .string()
    .regex(/^\d{11}$|^\d{14}$/, { error: 'must be a CPF (11) or CNPJ (14) of digits only' })
    .optional(),
  percent: decimal(5, 2)
    .refine((v) => v >= 0 && v <= 100, { error: 'must be between 0 and 100' })
    .optional(),
  type: z.enum(SPLIT_TYPES).optional(),
});
export type Split = z.infer<typeof SplitSchema>;

const amount = intDigits(10).refine((v) => v > 0, { error: 'must be greater than zero' });
const installments = intDigits(2).refine((v) => v >= 1, { error: 'must be at least 1' });

/** `POST /v1/payments`: credit with anti-fraud. */
export const CreditPaymentRequestSchema = z.object({
  payment: z.object({
    transactionType: z.literal('credit', { error: 'must be credit' }),
    amount,
    productType: z.enum(['avista', 'lojista']),
    installments,
  }),
  referenceTransaction: str(50).optional(),
  /** "merchant callback URL for payment flow updates": an absolute http(s) URL. */
  urlCallBack: httpUrl(500).optional(),
  sellerInfo: z.object({ codeAntiFraud: guid }),
  customer: CustomerSchema.optional(),
  cardInfo: CardInfoSchema,
  configSplit: z.array(SplitSchema).max(50, { error: 'at most 50 beneficiaries' }).optional(),
});
export type CreditPaymentRequest = z.infer<typeof CreditPaymentRequestSchema>;

/** Y/N, also accepting the boolean the spec's body shape shows. */
const yesNo = z.union([z.enum(['Y', 'N']), z.boolean().transform((b) => (b ? 'Y' : 'N'))]);

/** A numeric device field: the dictionary says string, the body shape an integer; both go. */
const numericField = (maxLen: number) =>
  z
    .union([z.string(), z.number().int()])
    .transform((v) => String(v))
    .pipe(
      z
        .string()
        .regex(/^-?\d+$/, { error: 'must be a whole number' })
        .max(maxLen, { error: `must be at most ${maxLen} characters` }),
    );

export const DeviceInfoSchema = z.object({
  httpAcceptBrowserValue: str(255).optional(),
  httpAcceptContent: str(256).optional(),
  httpBrowserLanguage: str(8).optional(),
  httpBrowserJavaEnabled: yesNo.optional(),
  httpBrowserJavaScriptEnabled: yesNo.optional(),
  httpBrowserColorDepth: numericField(3).optional(),
  httpBrowserScreenHeight: numericField(4).optional(),
  httpBrowserScreenWidth: numericField(4).optional(),
  httpBrowserTimeDifference: numericField(4).optional(),
  userAgentBrowserValue: str(255).optional(),
  ipAddress: str(48).optional(),
});
export type DeviceInfo = z.input<typeof DeviceInfoSchema>;

export const DEBIT_PRODUCT_TYPES = ['debito', 'avista', 'lojista'] as const;

export const DebitPaymentInfoSchema = z.object({
  transactionType: z.literal('debit', { error: 'must be debit' }),
  amount,
  productType: z.enum(DEBIT_PRODUCT_TYPES),
  installments,
  recurrent: z.boolean().optional(),
});

export const SellerInfo3dsSchema = z.object({
  codeAntiFraud: guid,
  code3DS: reqStr(36),
  /** "merchant site URL used for 3DS" (size 2048): the 3DS requestor URL, an absolute URL. */
  urlSite3DS: httpUrl(2048),
});

/** `POST /v1/payments/3ds`: debit with 3DS. */
export const Debit3dsPaymentRequestSchema = z.object({
  cardInfo: CardInfoSchema,
  customer: CustomerSchema.optional(),
  deviceInfo: DeviceInfoSchema.optional(),
  payment: DebitPaymentInfoSchema,
  sellerInfo: SellerInfo3dsSchema,
  referenceTransaction: str(50).optional(),
});
export type Debit3dsPaymentRequest = z.input<typeof Debit3dsPaymentRequestSchema>;

/**
 * `POST /v1/payments/3ds/validate` (shape "not shown"; decided in DESIGN §3): completes a
 * challenged payment with the ACS answer and a fresh ciphertext.
 */
export const Validate3dsRequestSchema = z.object({
  authenticationTransactionId: reqStr(64),
  pares: reqStr(8192),
  cardInfo: CardInfoSchema,
  payment: DebitPaymentInfoSchema,
  sellerInfo: SellerInfo3dsSchema,
});
export type Validate3dsRequest = z.input<typeof Validate3dsRequestSchema>;

export const THREE_DS_STATUSES = [
  'AUTHENTICATION_SUCCESSFUL',
  'PENDING_AUTHENTICATION',
  'AUTHENTICATION_FAILED',
] as const;

/** Approved return code; anything else in `returnCode` is a decline. */
export const APPROVED_RETURN_CODE = '00';

/**
 * `paymentAuthorization`. The spec's table marks none of its fields as always present (and a
 * decline has no authorization code to give): only `returnCode`, without which an answer
 * cannot be judged, is required; an approval must name its `paymentId` too. The others may be
 * null or missing (a decline with `authorizationCode: null` is a decline, not a protocol error).
 */
export const PaymentAuthorizationSchema = z
  .object({
    returnCode: z.string(),
    description: z.string().nullish(),
    paymentId: z.string().nullish(),
    authorizationCode: z.string().nullish(),
    orderNumber: z.string().nullish(),
    expireAt: z.string().nullish(),
    amount: z.number().int().nullish(),
    releaseAt: z.string().nullish(),
    /** Sandbox extension: the NSU, which reconciliation and webhooks key on. */
    nsu: z.string().nullish(),
    /**
     * Sandbox extension: `PENDING_AUTHENTICATION` while a 3DS challenge waits (then
     * `returnCode` is empty). Read `threeDs.status` first: such an answer is no decline.
     */
    status: z.string().nullish(),
  })
  .refine((a) => a.returnCode !== APPROVED_RETURN_CODE || !!a.paymentId, {
    path: ['paymentId'],
    error: 'an approval must name its payment',
  });
export type PaymentAuthorization = z.infer<typeof PaymentAuthorizationSchema>;

/** `threeDs`: its `status` decides the answer; the rest may be null or missing. */
export const ThreeDsSchema = z.object({
  status: z.string(),
  threeDsVersion: z.string().nullish(),
  acsUrl: z.string().nullish(),
  pareq: z.string().nullish(),
  authenticationTransactionId: z.string().nullish(),
  eci: z.string().nullish(),
  paresStatus: z.string().nullish(),
  threeDsStatus: z.string().nullish(),
  veresEnrolled: z.string().nullish(),
});
export type ThreeDs = z.infer<typeof ThreeDsSchema>;

/**
 * Answer of `/v1/payments/3ds` and of validate. The spec says every 200 carries both objects;
 * while a challenge is pending (`threeDs.status` `PENDING_AUTHENTICATION`) the
 * `paymentAuthorization` only says the payment waits for authentication, so `threeDs` is read
 * first. Still optional here: a gateway that leaves it out of a challenge is understood too.
 */
export const Debit3dsPaymentResponseSchema = z.object({
  paymentAuthorization: PaymentAuthorizationSchema.optional(),
  threeDs: ThreeDsSchema,
});
export type Debit3dsPaymentResponse = z.infer<typeof Debit3dsPaymentResponseSchema>;

/** Answer of `/v1/payments` ("not shown"; decided: the same authorization object). */
export const CreditPaymentResponseSchema = z.object({
  paymentAuthorization: PaymentAuthorizationSchema,
});
export type CreditPaymentResponse = z.infer<typeof CreditPaymentResponseSchema>;
