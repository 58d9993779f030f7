/**
 * Every operation of the gateway spec as data: which API, method and path, and the zod
 * schemas of its query, body and answer — the same schemas the client validates answers with
 * and the sandbox validates requests with. `openapi.ts` turns this table into the two OpenAPI
 * documents; a test checks it against the sandbox's routes, so neither can drift.
 */
import type { z } from 'zod';
import * as S from './schemas';

export type GatewayApi = 'gateway' | 'integration';

export interface GatewayOperation {
  operationId: string;
  /** Which of the spec's two APIs (and so which OpenAPI document) it belongs to. */
  api: GatewayApi;
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI path template: `{name}` for a path parameter. */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  /** False only for the token operations themselves. */
  auth?: false;
}

const op = (o: GatewayOperation): GatewayOperation => o;

export const GATEWAY_OPERATIONS: readonly GatewayOperation[] = [
  // ------------------------------------------------------------------ Gateway API
  op({
    operationId: 'issueGatewayToken',
    api: 'gateway',
    method: 'POST',
    path: '/api/auth/token',
    summary: 'Issue an access token for the Gateway API',
    tag: 'Authentication',
    body: S.TokenRequestSchema,
    response: S.TokenResponseSchema,
    auth: false,
  }),
  op({
    operationId: 'getPublicKey',
    api: 'gateway',
    method: 'GET',
    path: '/v1/cards/public-key',
    summary: 'The RSA public key (PEM, SPKI) to encrypt card data with',
    tag: 'Cards',
    response: S.PublicKeyResponseSchema,
  }),
  op({
    operationId: 'vaultCard',
    api: 'gateway',
    method: 'POST',
    path: '/v1/cards/vault',
    summary: 'Store a card for recurring charges',
    tag: 'Cards',
    body: S.VaultRequestSchema,
    response: S.VaultResponseSchema,
  }),
  op({
    operationId: 'createCreditPayment',
    api: 'gateway',
    method: 'POST',
    path: '/v1/payments',
    summary: 'Credit payment with anti-fraud',
    tag: 'Payments',
    body: S.CreditPaymentRequestSchema,
    response: S.CreditPaymentResponseSchema,
  }),
  op({
    operationId: 'createDebit3dsPayment',
    api: 'gateway',
    method: 'POST',
    path: '/v1/payments/3ds',
    summary: 'Debit payment with 3-D Secure (frictionless or a challenge)',
    tag: 'Payments',
    body: S.Debit3dsPaymentRequestSchema,
    response: S.Debit3dsPaymentResponseSchema,
  }),
  op({
    operationId: 'validate3ds',
    api: 'gateway',
    method: 'POST',
    path: '/v1/payments/3ds/validate',
    summary: 'Complete a challenged 3-D Secure payment',
    tag: 'Payments',
    body: S.Validate3dsRequestSchema,
    response: S.Debit3dsPaymentResponseSchema,
  }),
  op({
    operationId: 'listRefunds',
    api: 'gateway',
    method: 'GET',
    path: '/v1/refund/list',
    summary: 'Cancellation requests, newest first',
    tag: 'Refunds',
    query: S.RefundListQuerySchema,
    response: S.RefundListResponseSchema,
  }),
  op({
    operationId: 'createPlan',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/plans',
    summary: 'Create a recurrence plan',
    tag: 'Recurrence',
    body: S.CreatePlanRequestSchema,
    response: S.PlanIdResponseSchema,
  }),
  op({
    operationId: 'searchPlans',
    api: 'gateway',
    method: 'GET',
    path: '/v1/recurrences/plans',
    summary: 'Search plans',
    tag: 'Recurrence',
    query: S.PlanSearchQuerySchema,
    response: S.PlanSearchResponseSchema,
  }),
  op({
    operationId: 'getPlan',
    api: 'gateway',
    method: 'GET',
    path: '/v1/recurrences/plans/{planId}',
    summary: 'One plan',
    tag: 'Recurrence',
    response: S.PlanSchema,
  }),
  op({
    operationId: 'updatePlan',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/plans/{planId}',
    summary: 'Update a plan',
    tag: 'Recurrence',
    body: S.UpdatePlanRequestSchema,
    response: S.PlanIdResponseSchema,
  }),
  op({
    operationId: 'setPlanStatus',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/plans/{planId}/status',
    summary: "Change a plan's status",
    tag: 'Recurrence',
    body: S.PlanStatusRequestSchema,
    response: S.PlanIdResponseSchema,
  }),
  op({
    operationId: 'createSubscription',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/subscriptions',
    summary: 'Subscribe a vaulted card to a plan',
    tag: 'Recurrence',
    body: S.CreateSubscriptionRequestSchema,
    response: S.SubscriptionIdResponseSchema,
  }),
  op({
    operationId: 'searchSubscriptions',
    api: 'gateway',
    method: 'GET',
    path: '/v1/recurrences/subscriptions',
    summary: 'Search subscriptions',
    tag: 'Recurrence',
    query: S.SubscriptionSearchQuerySchema,
    response: S.SubscriptionSearchResponseSchema,
  }),
  op({
    operationId: 'getSubscription',
    api: 'gateway',
    method: 'GET',
    path: '/v1/recurrences/subscriptions/{subscriptionId}',
    summary: 'One subscription',
    tag: 'Recurrence',
    response: S.SubscriptionSchema,
  }),
  op({
    operationId: 'setSubscriptionStatus',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/subscriptions/{subscriptionId}/status',
    summary: "Change a subscription's status",
    tag: 'Recurrence',
    body: S.SubscriptionStatusRequestSchema,
    response: S.SubscriptionIdObjectResponseSchema,
  }),
  op({
    operationId: 'setSubscriptionVault',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/subscriptions/{subscriptionId}/vault',
    summary: 'Change the card a subscription charges',
    tag: 'Recurrence',
    body: S.SubscriptionVaultRequestSchema,
    response: S.SubscriptionIdObjectResponseSchema,
  }),
  op({
    operationId: 'searchBillings',
    api: 'gateway',
    method: 'GET',
    path: '/v1/recurrences/billing',
    summary: 'Search billings',
    tag: 'Recurrence',
    query: S.BillingSearchQuerySchema,
    response: S.BillingSearchResponseSchema,
  }),
  op({
    operationId: 'cancelBilling',
    api: 'gateway',
    method: 'POST',
    path: '/v1/recurrences/billing/{billingId}/cancel',
    summary: 'Cancel an open billing',
    tag: 'Recurrence',
    response: S.BillingIdResponseSchema,
  }),
  // ------------------------------------------------------------------ Integration API
  op({
    operationId: 'issueIntegrationToken',
    api: 'integration',
    method: 'POST',
    path: '/api/authentication/login',
    summary: 'Issue an access token for the Integration API',
    tag: 'Authentication',
    body: S.TokenRequestSchema,
    response: S.TokenResponseSchema,
    auth: false,
  }),
  ...(
    [
      [
        'searchConcilByCode',
        'search-by-code',
        S.ConcilByCodeQuerySchema,
        'by NSU or authorization code',
      ],
      [
        'searchConcilByAuthCode',
        'search-by-auth-code',
        S.ConcilByAuthCodeQuerySchema,
        'by authorization code',
      ],
      [
        'searchConcilByOperationDate',
        'search-by-operation-date',
        S.ConcilByOperationDateQuerySchema,
        'summed by operation date',
      ],
      [
        'searchConcilByOperationDateInstallments',
        'search-by-operation-date-installments',
        S.ConcilByOperationDateInstallmentsQuerySchema,
        'installments by operation date',
      ],
      [
        'searchConcilByPaymentDate',
        'search-by-payment-date',
        S.ConcilByPaymentDateQuerySchema,
        'installments by payment date',
      ],
    ] as const
  ).map(([operationId, path, query, what]) =>
    op({
      operationId,
      api: 'integration',
      method: 'POST',
      path: `/api/transaction/concil/${path}`,
      summary: `Reconciliation ${what}`,
      tag: 'Reconciliation',
      query,
      response:
        operationId === 'searchConcilByOperationDate'
          ? S.ConcilSummaryRowsSchema
          : S.ConcilInstallmentRowsSchema,
    }),
  ),
  op({
    operationId: 'listBankSlipsByDueDate',
    api: 'integration',
    method: 'GET',
    path: '/api/billissuer/list/by/due-date',
    summary: 'Bank slips by due date',
    tag: 'Bank slips',
    query: S.BankSlipDateRangeQuerySchema,
    response: S.BankSlipRowsSchema,
  }),
  op({
    operationId: 'listBankSlipsByPaymentDate',
    api: 'integration',
    method: 'GET',
    path: '/api/billissuer/list/by/payment-date',
    summary: 'Bank slips by payment date',
    tag: 'Bank slips',
    query: S.BankSlipDateRangeQuerySchema,
    response: S.BankSlipRowsSchema,
  }),
  op({
    operationId: 'listBankSlipsByCreditDate',
    api: 'integration',
    method: 'GET',
    path: '/api/billissuer/list/by/credit-date',
    summary: 'Bank slips by credit date',
    tag: 'Bank slips',
    query: S.BankSlipCreditDateQuerySchema,
    response: S.BankSlipCreditRowsSchema,
  }),
  op({
    operationId: 'getBankSlip',
    api: 'integration',
    method: 'GET',
    path: '/api/billissuer/information',
    summary: 'One bank slip',
    tag: 'Bank slips',
    query: S.BankSlipInformationQuerySchema,
    response: S.BankSlipDetailsSchema,
  }),
  op({
    operationId: 'setWebhook',
    api: 'integration',
    method: 'POST',
    path: '/api/webhooks/subscriptions',
    summary: "Register the account's webhook URL",
    tag: 'Webhooks',
    query: S.WebhookAccountQuerySchema,
    body: S.WebhookSubscriptionRequestSchema,
    response: S.WebhookSubscriptionResponseSchema,
  }),
  op({
    operationId: 'getWebhook',
    api: 'integration',
    method: 'GET',
    path: '/api/webhooks/subscriptions',
    summary: "The account's webhook URL",
    tag: 'Webhooks',
    query: S.WebhookAccountQuerySchema,
    response: S.WebhookSubscriptionResponseSchema,
  }),
  op({
    operationId: 'deleteWebhook',
    api: 'integration',
    method: 'DELETE',
    path: '/api/webhooks/subscriptions',
    summary: "Remove the account's webhook URL",
    tag: 'Webhooks',
    query: S.WebhookAccountQuerySchema,
    response: S.WebhookSubscriptionResponseSchema,
  }),
];
