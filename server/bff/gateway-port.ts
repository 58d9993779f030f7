import type {
  CreditPaymentRequest,
  CreditPaymentResponse,
  Debit3dsPaymentRequest,
  Debit3dsPaymentResponse,
  PublicKeyResponse,
  Validate3dsRequest,
} from '../gateway/schemas';

export interface GatewayCallOptions {
  timeoutMs?: number;
  idempotencyKey?: string;
}

/**
 * The part of the gateway client (`createGatewayClient`, server/gateway/client.ts) the BFF
 * uses. Typed structurally so tests can hand in a double and the BFF does not depend on
 * the client's other operations.
 */
export interface BffGateway {
  getPublicKey(input?: undefined, opts?: GatewayCallOptions): Promise<PublicKeyResponse>;
  createCreditPayment(
    body: CreditPaymentRequest,
    opts?: GatewayCallOptions,
  ): Promise<CreditPaymentResponse>;
  createDebit3dsPayment(
    body: Debit3dsPaymentRequest,
    opts?: GatewayCallOptions,
  ): Promise<Debit3dsPaymentResponse>;
  validate3ds(
    body: Validate3dsRequest,
    opts?: GatewayCallOptions,
  ): Promise<Debit3dsPaymentResponse>;
}
