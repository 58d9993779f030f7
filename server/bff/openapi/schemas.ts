/**
 * The merchant API's answers as zod schemas: what the OpenAPI document (./document.ts) says each
 * route answers, and what the contract tests check real answers against. The request schemas
 * are the ones the routes validate with (checkout-api.ts, routes/*).
 */
import { z } from 'zod';
import { API_ERROR_TYPES, EVENT_DELIVERY_STATUSES, EVENT_TYPES } from '../../../contract/events';
import { FAILURE_CODES, PAYMENT_METHODS, SESSION_STATUSES } from '../checkout-api';

const iso = z.string().describe('an ISO 8601 instant');
const cents = z.number().int().describe('cents');
const currency = z.literal('BRL');
const metadata = z.record(z.string(), z.string());

export const ApiErrorSchema = z.object({
  error: z.object({
    type: z.enum(API_ERROR_TYPES),
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    requestId: z.string(),
  }),
});

export const CreatedSessionSchema = z.object({
  id: z.string(),
  clientSecret: z.string().describe('shown once: hand it to the page that embeds the checkout'),
  status: z.enum(SESSION_STATUSES),
  amount: cents,
  currency,
  expiresAt: iso,
  metadata,
});

export const SessionSummarySchema = z.object({
  id: z.string(),
  status: z.enum(SESSION_STATUSES),
  amount: cents,
  currency,
  methods: z.array(z.enum(PAYMENT_METHODS)),
  maxInstallments: z.number().int(),
  referenceTransaction: z.string().nullable(),
  origin: z.string(),
  failureCode: z.enum(FAILURE_CODES).nullable(),
  attemptsLeft: z.number().int(),
  metadata,
  createdAt: iso,
  expiresAt: iso,
});

const FirstBillingSchema = z
  .object({
    id: z.string(),
    status: z.string().nullable(),
    amount: cents.nullable(),
    currency,
    nsu: z.string().nullable(),
    authorizationCode: z.string().nullable(),
    paymentId: z.string().nullable(),
  })
  .nullable();

const AttemptSchema = z.object({
  id: z.string(),
  method: z.string(),
  status: z.enum(['succeeded', 'declined', 'failed', 'unknown', 'challenge']),
  failureCode: z.string().nullable(),
  paymentId: z.string().nullable(),
  nsu: z.string().nullable(),
  authorizationCode: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  amount: cents,
  currency,
  installments: z.number().int(),
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  createdAt: iso,
  canceledAt: iso.nullable(),
  firstBilling: FirstBillingSchema,
});

const PlanSchema = z.looseObject({ id: z.string(), name: z.string(), amount: cents });

export const SessionDetailSchema = SessionSummarySchema.extend({
  customer: z.record(z.string(), z.unknown()).nullable(),
  plan: PlanSchema.nullable(),
  attempts: z.array(AttemptSchema),
  payment: z
    .object({
      paymentId: z.string().nullable(),
      nsu: z.string().nullable(),
      authorizationCode: z.string().nullable(),
      subscriptionId: z.string().nullable(),
      method: z.string(),
      amount: cents,
      currency,
      installments: z.number().int(),
      brand: z.string().nullable(),
      last4: z.string().nullable(),
      canceledAt: iso.nullable(),
      firstBilling: FirstBillingSchema,
    })
    .nullable(),
  paymentIds: z.array(z.string()),
});

export const EventSchema = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  createdAt: iso,
  data: z.record(z.string(), z.unknown()),
  delivery: z.object({
    status: z.enum(EVENT_DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: iso.nullable(),
    deliveredAt: iso.nullable(),
    history: z
      .array(
        z.object({
          attempt: z.number().int(),
          at: iso,
          status: z.number().int().nullable(),
          error: z.string().nullable(),
          durationMs: z.number().int(),
        }),
      )
      .optional(),
  }),
});

export const SubscriptionSchema = z.object({
  id: z.string(),
  status: z.string(),
  orderNumber: z.string(),
  createdDate: z.string(),
  sessionId: z.string(),
  firstBilling: FirstBillingSchema,
  plan: z.object({
    id: z.string(),
    name: z.string(),
    amount: cents,
    currency,
    planType: z.string(),
  }),
  billings: z.array(
    z.object({
      id: z.string(),
      status: z.string(),
      amount: cents,
      currency,
      installment: z.number().int(),
      expireAt: z.string(),
      createdDate: z.string(),
    }),
  ),
});

export const CanceledSubscriptionSchema = z.object({
  id: z.string(),
  status: z.literal('Canceled'),
  orderNumber: z.string(),
  sessionId: z.string(),
  plan: z.object({ id: z.string(), name: z.string(), amount: cents, currency }),
  canceledAt: iso,
});

export const WebhookNotificationSchema = z.object({
  movementId: z.number().int(),
  nsu: z.string(),
  codAuth: z.string(),
  installmentNumber: z.number().int(),
  moment: z.string(),
  type: z.string(),
  oldValue: z.string().nullable(),
  newValue: z.string(),
  receivedAt: iso,
  status: z.string(),
  processedAt: iso.nullable(),
  duplicates: z.number().int(),
  sessionId: z.string().nullable(),
});

/** A page of a list: `{data, hasMore}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), hasMore: z.boolean() });
}
