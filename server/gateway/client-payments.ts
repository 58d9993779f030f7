import {
  CreditPaymentResponseSchema,
  Debit3dsPaymentResponseSchema,
  PublicKeyResponseSchema,
  RefundListResponseSchema,
  VaultResponseSchema,
  type CreditPaymentRequest,
  type Debit3dsPaymentRequest,
  type Validate3dsRequest,
  type VaultRequest,
} from './schemas';
import type { RefundListParams } from './client-params';

import type { GatewayCallOptions, Transport } from './transport';

/**
 * The Gateway API's payment operations (payment credentials): the card key, payments, 3DS,
 * refunds and the vault.
 */
export function paymentCalls(call: Transport['call']) {
  return {
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
  };
}
