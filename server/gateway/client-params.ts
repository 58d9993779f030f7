// The parameters of the gateway client's operations (query strings, path ids).
import type { z } from 'zod';
import type {
  BankSlipCreditDateQuerySchema,
  BankSlipDateRangeQuerySchema,
  BillingSearchQuerySchema,
  ConcilByAuthCodeQuerySchema,
  ConcilByCodeQuerySchema,
  ConcilDateRangeQuerySchema,
  PlanSearchQuerySchema,
  RefundListQuerySchema,
  SubscriptionSearchQuerySchema,
  WebhookSubscriptionRequest,
} from './schemas';

/** A number in a query schema's output may be passed as a number or a numeric string. */
type Loosen<T> = T extends number ? number | string : T;

/**
 * Client-side type of a query whose schema parses strings (as the sandbox does): the same keys
 * and optionality, numbers accepted as numbers.
 */
export type QueryInput<S extends z.ZodType> = {
  [K in keyof z.input<S>]: K extends keyof z.output<S> ? Loosen<z.output<S>[K]> : z.input<S>[K];
};

/** `accountNumber` is the spec's `long`: pass it as a number or a string of digits. */
type WithAccount<T> = Omit<T, 'accountNumber'> & { accountNumber: string | number };

export type RefundListParams = QueryInput<typeof RefundListQuerySchema>;
export type PlanSearchParams = QueryInput<typeof PlanSearchQuerySchema>;
export type SubscriptionSearchParams = QueryInput<typeof SubscriptionSearchQuerySchema>;
export type BillingSearchParams = QueryInput<typeof BillingSearchQuerySchema>;
export type ConcilByCodeParams = WithAccount<QueryInput<typeof ConcilByCodeQuerySchema>>;
export type ConcilByAuthCodeParams = WithAccount<QueryInput<typeof ConcilByAuthCodeQuerySchema>>;
export type ConcilDateRangeParams = WithAccount<QueryInput<typeof ConcilDateRangeQuerySchema>>;
export type BankSlipDateRangeParams = WithAccount<QueryInput<typeof BankSlipDateRangeQuerySchema>>;
export type BankSlipCreditDateParams = WithAccount<
  QueryInput<typeof BankSlipCreditDateQuerySchema>
>;
export interface BankSlipInformationParams {
  accountNumber: string | number;
  /** The slip id; sent as both `id_bill` and `id` (the spec names it both ways). */
  id: string;
}
export interface WebhookAccountParams {
  accountNumber: string | number;
}
export type SetWebhookParams = WebhookAccountParams & WebhookSubscriptionRequest;

/** One path segment, percent-encoded (ids never change the path's shape). */
export function seg(id: string): string {
  return encodeURIComponent(id);
}
