import type { z } from 'zod';
import { GatewayValidationError } from './errors';
import {
  BankSlipCreditRowsSchema,
  BankSlipDetailsSchema,
  BankSlipRowsSchema,
  BillingIdResponseSchema,
  BillingSearchResponseSchema,
  ConcilInstallmentRowsSchema,
  ConcilSummaryRowsSchema,
  CreditPaymentResponseSchema,
  Debit3dsPaymentResponseSchema,
  PlanIdResponseSchema,
  PlanSchema,
  PlanSearchResponseSchema,
  PublicKeyResponseSchema,
  RefundListResponseSchema,
  SubscriptionIdObjectResponseSchema,
  SubscriptionIdResponseSchema,
  SubscriptionSchema,
  SubscriptionSearchResponseSchema,
  VaultResponseSchema,
  WebhookSubscriptionResponseSchema,
  type BankSlipCreditDateQuerySchema,
  type BankSlipDateRangeQuerySchema,
  type BillingSearchQuerySchema,
  type ConcilByAuthCodeQuerySchema,
  type ConcilByCodeQuerySchema,
  type ConcilDateRangeQuerySchema,
  type CreatePlanRequest,
  type CreateSubscriptionRequest,
  type CreditPaymentRequest,
  type Debit3dsPaymentRequest,
  type PlanSearchQuerySchema,
  type PlanStatus,
  type RefundListQuerySchema,
  type SubscriptionSearchQuerySchema,
  type UpdatePlanRequest,
  type Validate3dsRequest,
  type VaultRequest,
  type WebhookSubscriptionRequest,
} from './schemas';
import { createTransport, type GatewayCallOptions, type GatewayClientOptions } from './transport';

export {
  queryString,
  THREE_DS_CHALLENGE_STATUS,
  type GatewayCallOptions,
  type GatewayClientOptions,
  type GatewayCredentials,
} from './transport';

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

/**
 * A typed client for every operation of the gateway spec, both APIs.
 *
 * - Each method takes `(input, options)` and resolves the parsed, validated 2xx body.
 * - Tokens come from a `TokenManager` (one per credential set, refreshed ahead of expiry); a
 *   `401` triggers one token refresh and one retry, never more (a 401 means "not processed",
 *   so this is the only retry, money-moving calls included).
 * - Failures throw the `GatewayError` family (see errors.ts); a declined payment throws
 *   `GatewayDeclinedError` carrying the parsed answer.
 * - A 2xx whose body does not match the spec's shape throws `GatewayProtocolError`.
 */
export function createGatewayClient(opts: GatewayClientOptions) {
  const { tokens, call, close } = createTransport(opts);

  return {
    /** The token manager in use (shared caches, readiness checks). */
    tokens,

    /** Closes the idle keep-alive connections to the gateway. */
    close,

    /** `GET /v1/cards/public-key`: the PEM (SPKI) key to encrypt card data with. */
    getPublicKey: (_input?: undefined, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getPublicKey',
          family: 'gateway',
          method: 'GET',
          path: '/v1/cards/public-key',
          schema: PublicKeyResponseSchema,
        },
        o,
      ),

    /** `POST /v1/payments`: credit with anti-fraud. Throws `GatewayDeclinedError` on a decline. */
    createCreditPayment: (body: CreditPaymentRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createCreditPayment',
          family: 'gateway',
          method: 'POST',
          path: '/v1/payments',
          body,
          schema: CreditPaymentResponseSchema,
          declines: true,
        },
        o,
      ),

    /**
     * `POST /v1/payments/3ds`: debit with 3DS. A pending challenge resolves normally
     * (`threeDs.status` `PENDING_AUTHENTICATION`, read before `paymentAuthorization`, which
     * then only waits for authentication); a `3DS Fail` throws `GatewayThreeDsError`; a
     * decline throws `GatewayDeclinedError`.
     */
    createDebit3dsPayment: (body: Debit3dsPaymentRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createDebit3dsPayment',
          family: 'gateway',
          method: 'POST',
          path: '/v1/payments/3ds',
          body,
          schema: Debit3dsPaymentResponseSchema,
          declines: true,
        },
        o,
      ),

    /** `POST /v1/payments/3ds/validate`: completes a challenged payment. */
    validate3ds: (body: Validate3dsRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'validate3ds',
          family: 'gateway',
          method: 'POST',
          path: '/v1/payments/3ds/validate',
          body,
          schema: Debit3dsPaymentResponseSchema,
          declines: true,
        },
        o,
      ),

    /** `GET /v1/refund/list`: cancellation requests, newest first. */
    listRefunds: (query: RefundListParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'listRefunds',
          family: 'gateway',
          method: 'GET',
          path: '/v1/refund/list',
          query,
          schema: RefundListResponseSchema,
        },
        o,
      ),

    /** `POST /v1/cards/vault` (DESIGN §5): stores a card, answers `{vaultId}`. */
    vaultCard: (body: VaultRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'vaultCard',
          family: 'gateway',
          method: 'POST',
          path: '/v1/cards/vault',
          body,
          schema: VaultResponseSchema,
        },
        o,
      ),

    // ---- Recurrence (Gateway API, recurrence credentials) ---------------------------------

    /** `POST /v1/recurrences/plans`: resolves the new plan id. */
    createPlan: (body: CreatePlanRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createPlan',
          family: 'recurrence',
          method: 'POST',
          path: '/v1/recurrences/plans',
          body,
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/plans?name&status&orderBy&page&limit`. */
    searchPlans: (query: PlanSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchPlans',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/plans',
          query,
          schema: PlanSearchResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/plans/{planId}`. */
    getPlan: (planId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getPlan',
          family: 'recurrence',
          method: 'GET',
          path: `/v1/recurrences/plans/${seg(planId)}`,
          pathIds: { planId },
          schema: PlanSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/plans/{planId}`: resolves the plan id. */
    updatePlan: (input: { planId: string; body: UpdatePlanRequest }, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'updatePlan',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/plans/${seg(input.planId)}`,
          pathIds: { planId: input.planId },
          body: input.body,
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/plans/{planId}/status`: resolves the plan id. */
    setPlanStatus: (input: { planId: string; status: PlanStatus }, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'setPlanStatus',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/plans/${seg(input.planId)}/status`,
          pathIds: { planId: input.planId },
          body: { status: input.status },
          schema: PlanIdResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions`: resolves the new subscription id. */
    createSubscription: (body: CreateSubscriptionRequest, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'createSubscription',
          family: 'recurrence',
          method: 'POST',
          path: '/v1/recurrences/subscriptions',
          body,
          schema: SubscriptionIdResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/subscriptions?planName&status&orderBy&page&limit`. */
    searchSubscriptions: (query: SubscriptionSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchSubscriptions',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/subscriptions',
          query,
          schema: SubscriptionSearchResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/subscriptions/{subscriptionId}`. */
    getSubscription: (subscriptionId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getSubscription',
          family: 'recurrence',
          method: 'GET',
          path: `/v1/recurrences/subscriptions/${seg(subscriptionId)}`,
          pathIds: { subscriptionId },
          schema: SubscriptionSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions/{id}/status` (`Actived` or `Canceled`): `{id}`. */
    setSubscriptionStatus: (
      input: { subscriptionId: string; status: 'Actived' | 'Canceled' },
      o?: GatewayCallOptions,
    ) =>
      call(
        {
          operation: 'setSubscriptionStatus',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/subscriptions/${seg(input.subscriptionId)}/status`,
          pathIds: { subscriptionId: input.subscriptionId },
          body: { status: input.status },
          schema: SubscriptionIdObjectResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/subscriptions/{id}/vault`: binds another card; `{id}`. */
    setSubscriptionVault: (
      input: { subscriptionId: string; vaultId: string },
      o?: GatewayCallOptions,
    ) =>
      call(
        {
          operation: 'setSubscriptionVault',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/subscriptions/${seg(input.subscriptionId)}/vault`,
          pathIds: { subscriptionId: input.subscriptionId },
          body: { vaultId: input.vaultId },
          schema: SubscriptionIdObjectResponseSchema,
        },
        o,
      ),

    /** `GET /v1/recurrences/billing?mid&status&expirationDateRange…&orderBy&page&limit`. */
    searchBillings: (query: BillingSearchParams = {}, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchBillings',
          family: 'recurrence',
          method: 'GET',
          path: '/v1/recurrences/billing',
          query,
          schema: BillingSearchResponseSchema,
        },
        o,
      ),

    /** `POST /v1/recurrences/billing/{billingId}/cancel`: resolves the billing id. */
    cancelBilling: (billingId: string, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'cancelBilling',
          family: 'recurrence',
          method: 'POST',
          path: `/v1/recurrences/billing/${seg(billingId)}/cancel`,
          pathIds: { billingId },
          schema: BillingIdResponseSchema,
        },
        o,
      ),

    // ---- Reconciliation (Integration API): POST, query parameters, no body -----------------

    /** `POST /api/transaction/concil/search-by-code?accountNumber&nsu&codAuth`. */
    searchConcilByCode: (query: ConcilByCodeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchConcilByCode',
          family: 'integration',
          method: 'POST',
          path: '/api/transaction/concil/search-by-code',
          query,
          schema: ConcilInstallmentRowsSchema,
        },
        o,
      ),

    /** `POST /api/transaction/concil/search-by-auth-code?accountNumber&codAuth&…`. */
    searchConcilByAuthCode: (query: ConcilByAuthCodeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchConcilByAuthCode',
          family: 'integration',
          method: 'POST',
          path: '/api/transaction/concil/search-by-auth-code',
          query,
          schema: ConcilInstallmentRowsSchema,
        },
        o,
      ),

    /** `POST /api/transaction/concil/search-by-operation-date`: one summary row per sale. */
    searchConcilByOperationDate: (query: ConcilDateRangeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchConcilByOperationDate',
          family: 'integration',
          method: 'POST',
          path: '/api/transaction/concil/search-by-operation-date',
          query,
          schema: ConcilSummaryRowsSchema,
        },
        o,
      ),

    /** `POST /api/transaction/concil/search-by-operation-date-installments`. */
    searchConcilByOperationDateInstallments: (
      query: ConcilDateRangeParams,
      o?: GatewayCallOptions,
    ) =>
      call(
        {
          operation: 'searchConcilByOperationDateInstallments',
          family: 'integration',
          method: 'POST',
          path: '/api/transaction/concil/search-by-operation-date-installments',
          query,
          schema: ConcilInstallmentRowsSchema,
        },
        o,
      ),

    /** `POST /api/transaction/concil/search-by-payment-date`. */
    searchConcilByPaymentDate: (query: ConcilDateRangeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'searchConcilByPaymentDate',
          family: 'integration',
          method: 'POST',
          path: '/api/transaction/concil/search-by-payment-date',
          query,
          schema: ConcilInstallmentRowsSchema,
        },
        o,
      ),

    // ---- Bank slips (Integration API) -------------------------------------------------------

    /** `GET /api/billissuer/list/by/due-date`. */
    listBankSlipsByDueDate: (query: BankSlipDateRangeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'listBankSlipsByDueDate',
          family: 'integration',
          method: 'GET',
          path: '/api/billissuer/list/by/due-date',
          query,
          schema: BankSlipRowsSchema,
        },
        o,
      ),

    /** `GET /api/billissuer/list/by/payment-date` (paid slips only). */
    listBankSlipsByPaymentDate: (query: BankSlipDateRangeParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'listBankSlipsByPaymentDate',
          family: 'integration',
          method: 'GET',
          path: '/api/billissuer/list/by/payment-date',
          query,
          schema: BankSlipRowsSchema,
        },
        o,
      ),

    /** `GET /api/billissuer/list/by/credit-date` (PascalCase rows). */
    listBankSlipsByCreditDate: (query: BankSlipCreditDateParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'listBankSlipsByCreditDate',
          family: 'integration',
          method: 'GET',
          path: '/api/billissuer/list/by/credit-date',
          query,
          schema: BankSlipCreditRowsSchema,
        },
        o,
      ),

    /**
     * `GET /api/billissuer/information?accountNumber&id_bill` (also sends `id`). A 2xx with
     * `success: false` throws `GatewayValidationError` with the gateway's `message`.
     */
    getBankSlip: (input: BankSlipInformationParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getBankSlip',
          family: 'integration',
          method: 'GET',
          path: '/api/billissuer/information',
          query: { accountNumber: input.accountNumber, id_bill: input.id, id: input.id },
          schema: BankSlipDetailsSchema,
          check: (d, status) =>
            d.success
              ? undefined
              : new GatewayValidationError({
                  status,
                  operation: 'getBankSlip',
                  items: [{ tag: '', description: d.message || 'the gateway refused the request' }],
                }),
        },
        o,
      ),

    // ---- Webhooks (Integration API) ---------------------------------------------------------

    /** `POST /api/webhooks/subscriptions?accountNumber` with `{url, basicAuth}`: `{url}`. */
    setWebhook: (input: SetWebhookParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'setWebhook',
          family: 'integration',
          method: 'POST',
          path: '/api/webhooks/subscriptions',
          query: { accountNumber: input.accountNumber },
          body: { url: input.url, basicAuth: input.basicAuth },
          schema: WebhookSubscriptionResponseSchema,
        },
        o,
      ),

    /** `GET /api/webhooks/subscriptions?accountNumber`: the registered `{url}`. */
    getWebhook: (input: WebhookAccountParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'getWebhook',
          family: 'integration',
          method: 'GET',
          path: '/api/webhooks/subscriptions',
          query: { accountNumber: input.accountNumber },
          schema: WebhookSubscriptionResponseSchema,
        },
        o,
      ),

    /** `DELETE /api/webhooks/subscriptions?accountNumber`: notifications stop; `{url}`. */
    deleteWebhook: (input: WebhookAccountParams, o?: GatewayCallOptions) =>
      call(
        {
          operation: 'deleteWebhook',
          family: 'integration',
          method: 'DELETE',
          path: '/api/webhooks/subscriptions',
          query: { accountNumber: input.accountNumber },
          schema: WebhookSubscriptionResponseSchema,
        },
        o,
      ),
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

/** One path segment, percent-encoded (ids never change the path's shape). */
function seg(id: string): string {
  return encodeURIComponent(id);
}
