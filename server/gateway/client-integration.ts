import { GatewayValidationError } from './errors';
import {
  BankSlipCreditRowsSchema,
  BankSlipDetailsSchema,
  BankSlipRowsSchema,
  ConcilInstallmentRowsSchema,
  ConcilSummaryRowsSchema,
  WebhookSubscriptionResponseSchema,
} from './schemas';
import {
  type BankSlipCreditDateParams,
  type BankSlipDateRangeParams,
  type BankSlipInformationParams,
  type ConcilByAuthCodeParams,
  type ConcilByCodeParams,
  type ConcilDateRangeParams,
  type SetWebhookParams,
  type WebhookAccountParams,
} from './client-params';
import type { GatewayCallOptions, Transport } from './transport';

/** The Integration API's operations: reconciliation, bank slips and webhook subscriptions. */
export function integrationCalls(call: Transport['call']) {
  return {
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
