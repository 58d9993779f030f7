import { z } from 'zod';
import { decimalLoose, isCalendarDate } from '../../gateway/schemas/common';
import { customPlanRules } from '../../gateway/schemas/recurrence';
import {
  BILLING_STATUSES,
  PLAN_STATUSES,
  PLAN_TYPES,
  SUBSCRIPTION_STATUSES,
  type PlanType,
} from './store';

/**
 * Request validation of the sandbox recurrence routes (spec: Plans, Subscriptions, Billings).
 * Bodies are strict so a misspelt optional field (`intervall`) is refused instead of silently
 * defaulted; search queries ignore keys they do not know, as query strings commonly do. Rules that need stored state (update rules, plan status) live in the domain files.
 */

const required = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? 'is required' : `must be ${what}`;

const text = (max: number) =>
  z
    .string({ error: required('a string') })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

const int = (min: number, max: number) =>
  z
    .number({ error: required('an integer') })
    .int({ error: 'must be an integer' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: required(`one of ${values.join(', ')}`) });

/** Days between billings and installments of each non-custom plan type (DESIGN §5). */
export const PLAN_TYPE_SCHEDULE: Readonly<
  Record<Exclude<PlanType, 'Custom'>, { interval: number; installments: number }>
> = {
  Monthly: { interval: 30, installments: 0 },
  Bimonthly: { interval: 60, installments: 0 },
  Quarterly: { interval: 90, installments: 0 },
  Semesterly: { interval: 180, installments: 0 },
  Yearly: { interval: 365, installments: 0 },
};

export const MAX_ATTEMPTS = 4;

const planFields = {
  merchantId: z
    .string({ error: required('a string') })
    .regex(/^\d{1,20}$/, { error: 'must be 1 to 20 digits' }),
  name: text(255),
  description: text(255),
  amount: z
    .custom<unknown>((v) => v !== undefined, { error: 'is required' })
    .pipe(
      decimalLoose(18, 6).refine((v) => v >= 0.01, {
        error: 'must be at least 0.01 (billings charge whole cents)',
      }),
    ),
  planType: oneOf(PLAN_TYPES),
  trialDays: int(0, 3650).optional(),
  paymentMethod: oneOf(['CreditCard'] as const),
  interval: int(1, 3650).optional(),
  installments: int(0, 9999).optional(),
  attempts: int(0, MAX_ATTEMPTS).optional(),
};

type PlanShape = {
  planType: PlanType;
  interval?: number | undefined;
  installments?: number | undefined;
};

/**
 * Custom needs interval ≥ 20 and installments > 0. Other types: the spec says interval and
 * installments "need not be sent; the service sets them from the plan type", so values sent
 * are accepted and overwritten by the type's schedule (plans.ts), never refused.
 */
function checkSchedule(body: PlanShape, ctx: z.RefinementCtx): void {
  if (body.planType === 'Custom') customPlanRules(body, ctx);
}

export const CreatePlanBodySchema = z
  .object({ ...planFields, merchantId: planFields.merchantId.optional() })
  .strict()
  .superRefine(checkSchedule);
export type CreatePlanBody = z.infer<typeof CreatePlanBodySchema>;

/** Update takes the creation fields, merchantId required (spec). */
export const UpdatePlanBodySchema = z.object(planFields).strict().superRefine(checkSchedule);
export type UpdatePlanBody = z.infer<typeof UpdatePlanBodySchema>;

export const PlanStatusBodySchema = z.object({ status: oneOf(PLAN_STATUSES) }).strict();

export const CreateSubscriptionBodySchema = z
  .object({ vaultId: text(36), orderNumber: text(10), planId: text(36) })
  .strict();
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBodySchema>;

/** The spec's status operation speaks `Actived`; records say `Active`. */
export const SubscriptionStatusBodySchema = z
  .object({ status: oneOf(['Actived', 'Canceled'] as const) })
  .strict();

export const SubscriptionVaultBodySchema = z.object({ vaultId: text(36) }).strict();

/** Path ids of the recurrence operations: max 36 (spec, Limits). */
export const IdParamSchema = text(36);

// ---- searches --------------------------------------------------------------------------

export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

/**
 * `orderBy`: the contract takes any string ("OrderBy accepted values …: not shown"). A known
 * field sorts ascending, `-field` descending; anything else is ignored (the default order).
 */
const orderBy = <T extends readonly string[]>(fields: T, fallback: T[number]) =>
  z
    .string()
    .optional()
    .transform((v) => {
      const field = v?.trim().replace(/^-/, '');
      return field !== undefined && fields.includes(field)
        ? { field: field as T[number], desc: v!.trim().startsWith('-') }
        : { field: fallback, desc: true };
    });

const paging = {
  page: queryInt(1, 1_000_000).default(DEFAULT_PAGE),
  limit: queryInt(1, MAX_LIMIT).default(DEFAULT_LIMIT),
};

export const PLAN_ORDER_FIELDS = ['createdDate', 'name', 'amount', 'status', 'planType'] as const;
export const PlanSearchQuerySchema = z.object({
  name: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
  status: oneOf(PLAN_STATUSES).optional(),
  orderBy: orderBy(PLAN_ORDER_FIELDS, 'createdDate'),
  ...paging,
});
export type PlanSearchQuery = z.infer<typeof PlanSearchQuerySchema>;

export const SUBSCRIPTION_ORDER_FIELDS = [
  'createdDate',
  'status',
  'orderNumber',
  'planName',
] as const;
export const SubscriptionSearchQuerySchema = z.object({
  planName: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
  status: oneOf(SUBSCRIPTION_STATUSES).optional(),
  orderBy: orderBy(SUBSCRIPTION_ORDER_FIELDS, 'createdDate'),
  ...paging,
});
export type SubscriptionSearchQuery = z.infer<typeof SubscriptionSearchQuerySchema>;

const date = z.string().refine(isCalendarDate, { error: 'must be a date YYYY-MM-DD' });

export const BILLING_ORDER_FIELDS = [
  'createdDate',
  'expireAt',
  'amount',
  'status',
  'installment',
] as const;
export const BillingSearchQuerySchema = z
  .object({
    mid: z
      .string()
      .regex(/^\d{1,20}$/, { error: 'must be 1 to 20 digits' })
      .optional(),
    status: oneOf(BILLING_STATUSES).optional(),
    expirationDateRangeStartDate: date.optional(),
    expirationDateRangeEndDate: date.optional(),
    orderBy: orderBy(BILLING_ORDER_FIELDS, 'createdDate'),
    ...paging,
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
