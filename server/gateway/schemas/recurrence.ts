import { z } from 'zod';
import {
  decimal,
  isoDate,
  looseNumber,
  queryInt,
  reqStr,
  respDateTime,
  searchEnvelope,
  str,
} from './common';

/*
 * Recurring billing (spec: Plan, Subscription, Billing; Endpoints: Plans, Subscriptions,
 * Billings), all under the Gateway API `/v1/recurrences/…`.
 *
 * Where the spec contradicts itself, what we accept:
 * - Custom plan interval: "at least 20" (rules, limits) vs "greater than 20" (parameter
 *   table). We accept 20 (the more permissive reading, also DESIGN §5).
 * - Subscription status: records say `Active`, the status operation takes `Actived`. The
 *   status body accepts `Actived | Canceled` only; the resource carries `Active | Canceled |
 *   Blocked`.
 * - Responses: plan create/update/status and subscription create answer the id as a bare JSON
 *   string; subscription status/vault answer `{id}`; billing cancel a bare JSON string.
 * - `interval`/`installments` for non-Custom plans "need not be sent": we accept them when
 *   sent (the gateway sets them from the type), we only require them for Custom.
 * - `attempts` is "conditional" without a stated condition: optional, 0 to 4.
 * - Search `orderBy` values, page/limit bounds and status filter values are "not shown": any
 *   `orderBy` string; page ≥ 1, limit ≥ 1; status filters use the resource's enumerations.
 */

export const PLAN_TYPES = [
  'Monthly',
  'Bimonthly',
  'Quarterly',
  'Semesterly',
  'Yearly',
  'Custom',
] as const;
export const PlanTypeSchema = z.enum(PLAN_TYPES);
export type PlanType = z.infer<typeof PlanTypeSchema>;

export const PLAN_STATUSES = ['Active', 'Inactive', 'Canceled'] as const;
export const PlanStatusSchema = z.enum(PLAN_STATUSES);
export type PlanStatus = z.infer<typeof PlanStatusSchema>;

export const PAYMENT_METHODS = ['CreditCard'] as const;
export const PaymentMethodSchema = z.enum(PAYMENT_METHODS);

export const SUBSCRIPTION_STATUSES = ['Active', 'Canceled', 'Blocked'] as const;
export const SubscriptionStatusSchema = z.enum(SUBSCRIPTION_STATUSES);
export type SubscriptionStatus = z.infer<typeof SubscriptionStatusSchema>;

/** What the subscription status operation accepts (note `Actived`). */
export const SUBSCRIPTION_STATUS_CHANGES = ['Actived', 'Canceled'] as const;

export const BILLING_STATUSES = ['Opened', 'PaymentInvalid', 'Canceled', 'Denied', 'Paid'] as const;
export const BillingStatusSchema = z.enum(BILLING_STATUSES);
export type BillingStatus = z.infer<typeof BillingStatusSchema>;

/** Custom plans: interval of at least this many days. */
export const MIN_CUSTOM_INTERVAL_DAYS = 20;
/** Retry attempts: at most 4. */
export const MAX_PLAN_ATTEMPTS = 4;

/** Path ids of the recurrence operations (planId, subscriptionId, billingId): max 36. */
export const RecurrenceIdSchema = reqStr(36);

const nonNegInt = z
  .number({ error: 'must be an integer' })
  .int({ error: 'must be an integer' })
  .nonnegative({ error: 'must not be negative' });

/** Plan amount: 12 integer digits and 6 decimals, greater than zero. */
const planAmount = decimal(18, 6).refine((v) => v > 0, { error: 'must be greater than zero' });

const planFields = {
  merchantId: str(20).min(1, { error: 'is required' }),
  name: reqStr(255),
  description: reqStr(255),
  amount: planAmount,
  planType: PlanTypeSchema,
  trialDays: nonNegInt.optional(),
  paymentMethod: PaymentMethodSchema,
  interval: nonNegInt.optional(),
  installments: nonNegInt.optional(),
  attempts: nonNegInt.max(MAX_PLAN_ATTEMPTS, { error: 'must be at most 4' }).optional(),
};

/** Plan rule 3: Custom needs interval ≥ 20 and installments > 0 (the sandbox uses it too). */
export function customPlanRules(
  body: { planType: PlanType; interval?: number | undefined; installments?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (body.planType !== 'Custom') return;
  if (body.interval === undefined) {
    ctx.addIssue({ code: 'custom', path: ['interval'], message: 'is required for Custom plans' });
  } else if (body.interval < MIN_CUSTOM_INTERVAL_DAYS) {
    ctx.addIssue({
      code: 'custom',
      path: ['interval'],
      message: `must be at least ${MIN_CUSTOM_INTERVAL_DAYS} days for Custom plans`,
    });
  }
  if (body.installments === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['installments'],
      message: 'is required for Custom plans',
    });
  } else if (body.installments < 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['installments'],
      message: 'must be greater than zero for Custom plans',
    });
  }
}

/** `POST /v1/recurrences/plans`. `merchantId` optional (taken from authentication). */
export const CreatePlanRequestSchema = z
  .object({ ...planFields, merchantId: planFields.merchantId.optional() })
  .superRefine(customPlanRules);
export type CreatePlanRequest = z.input<typeof CreatePlanRequestSchema>;

/** `POST /v1/recurrences/plans/{planId}`: the creation fields, `merchantId` required. */
export const UpdatePlanRequestSchema = z.object(planFields).superRefine(customPlanRules);
export type UpdatePlanRequest = z.input<typeof UpdatePlanRequestSchema>;

/** `POST /v1/recurrences/plans/{planId}/status`. */
export const PlanStatusRequestSchema = z.object({ status: PlanStatusSchema });
export type PlanStatusRequest = z.input<typeof PlanStatusRequestSchema>;

/** Plan create, update and status answer the plan id as a JSON string. */
export const PlanIdResponseSchema = z.string().min(1);

export const PlanSchema = z.object({
  id: z.string(),
  merchantId: z.string(),
  name: z.string(),
  description: z.string(),
  amount: looseNumber,
  planType: PlanTypeSchema,
  trialDays: z.number().int().nullish(),
  paymentMethod: PaymentMethodSchema,
  interval: z.number().int().nullish(),
  installments: z.number().int().nullish(),
  status: PlanStatusSchema,
  attempts: z.number().int().nullish(),
  createdDate: respDateTime,
  /** Present in some records. */
  createdBy: z.string().nullish(),
});
export type Plan = z.infer<typeof PlanSchema>;

const page = queryInt({ min: 1 }).optional();
const limit = queryInt({ min: 1 }).optional();

/** `GET /v1/recurrences/plans?name&status&orderBy&page&limit` (all optional). */
export const PlanSearchQuerySchema = z.object({
  name: str(255).optional(),
  status: PlanStatusSchema.optional(),
  orderBy: str(100).optional(),
  page,
  limit,
});
export type PlanSearchQuery = z.infer<typeof PlanSearchQuerySchema>;

export const PlanSearchResponseSchema = searchEnvelope(PlanSchema);
export type PlanSearchResponse = z.infer<typeof PlanSearchResponseSchema>;

/** `POST /v1/recurrences/subscriptions`. */
export const CreateSubscriptionRequestSchema = z.object({
  vaultId: reqStr(36),
  orderNumber: reqStr(10),
  planId: reqStr(36),
});
export type CreateSubscriptionRequest = z.input<typeof CreateSubscriptionRequestSchema>;

/** Subscription creation answers the subscription id as a JSON string. */
export const SubscriptionIdResponseSchema = z.string().min(1);

/** `POST /v1/recurrences/subscriptions/{id}/status`: `Actived` or `Canceled`. */
export const SubscriptionStatusRequestSchema = z.object({
  status: z.enum(SUBSCRIPTION_STATUS_CHANGES),
});
export type SubscriptionStatusRequest = z.input<typeof SubscriptionStatusRequestSchema>;

/** `POST /v1/recurrences/subscriptions/{id}/vault`. */
export const SubscriptionVaultRequestSchema = z.object({ vaultId: reqStr(36) });
export type SubscriptionVaultRequest = z.input<typeof SubscriptionVaultRequestSchema>;

/** Subscription status and vault operations answer an object with the id. */
export const SubscriptionIdObjectResponseSchema = z.object({ id: z.string().min(1) });
export type SubscriptionIdObjectResponse = z.infer<typeof SubscriptionIdObjectResponseSchema>;

export const SubscriptionSchema = z.object({
  id: z.string(),
  vaultId: z.string(),
  orderNumber: z.string(),
  status: SubscriptionStatusSchema,
  plan: PlanSchema,
  /** Present in some records. */
  createdBy: z.string().nullish(),
  createdDate: respDateTime,
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

/** `GET /v1/recurrences/subscriptions?planName&status&orderBy&page&limit`. */
export const SubscriptionSearchQuerySchema = z.object({
  planName: str(255).optional(),
  status: SubscriptionStatusSchema.optional(),
  orderBy: str(100).optional(),
  page,
  limit,
});
export type SubscriptionSearchQuery = z.infer<typeof SubscriptionSearchQuerySchema>;

export const SubscriptionSearchResponseSchema = searchEnvelope(SubscriptionSchema);
export type SubscriptionSearchResponse = z.infer<typeof SubscriptionSearchResponseSchema>;

export const BillingSchema = z.object({
  id: z.string(),
  status: BillingStatusSchema,
  expireAt: respDateTime,
  amount: looseNumber,
  installment: z.number().int(),
  subscription: SubscriptionSchema,
  /** Present in some records. */
  createdBy: z.string().nullish(),
  modifiedBy: z.string().nullish(),
  createdDate: respDateTime,
  modifiedDate: respDateTime.nullish(),
});
export type Billing = z.infer<typeof BillingSchema>;

/**
 * `GET /v1/recurrences/billing?mid&status&expirationDateRangeStartDate&…EndDate&orderBy&page&limit`.
 * `mid` is the merchant number (same size as `merchantId`, 20).
 */
export const BillingSearchQuerySchema = z
  .object({
    mid: str(20).optional(),
    status: BillingStatusSchema.optional(),
    expirationDateRangeStartDate: isoDate.optional(),
    expirationDateRangeEndDate: isoDate.optional(),
    orderBy: str(100).optional(),
    page,
    limit,
  })
  .superRefine((q, ctx) => {
    if (
      q.expirationDateRangeStartDate &&
      q.expirationDateRangeEndDate &&
      q.expirationDateRangeStartDate > q.expirationDateRangeEndDate
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['expirationDateRangeEndDate'],
        message: 'must not be before expirationDateRangeStartDate',
      });
    }
  });
export type BillingSearchQuery = z.infer<typeof BillingSearchQuerySchema>;

export const BillingSearchResponseSchema = searchEnvelope(BillingSchema);
export type BillingSearchResponse = z.infer<typeof BillingSearchResponseSchema>;

/** `POST /v1/recurrences/billing/{billingId}/cancel` answers the billing id as a JSON string. */
export const BillingIdResponseSchema = z.string().min(1);
