import type {
  CreditPaymentRequest,
  CreditPaymentResponse,
  Debit3dsPaymentRequest,
  Debit3dsPaymentResponse,
  BillingSearchResponse,
  BillingStatus,
  ConcilInstallmentRow,
  ConcilSummaryRow,
  CreateSubscriptionRequest,
  Plan,
  PlanSearchResponse,
  PublicKeyResponse,
  Subscription,
  SubscriptionSearchResponse,
  Validate3dsRequest,
  VaultRequest,
  VaultResponse,
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
  /** Subscription checkout: the plan a session charges. */
  getPlan(planId: string, opts?: GatewayCallOptions): Promise<Plan>;
  /** The plans whose names contain `name` (a plan's proof reads which ones a search spans). */
  searchPlans(
    query?: { name?: string; page?: number; limit?: number },
    opts?: GatewayCallOptions,
  ): Promise<PlanSearchResponse>;
  /** Subscription checkout: the card kept by the gateway for the billings. */
  vaultCard(body: VaultRequest, opts?: GatewayCallOptions): Promise<VaultResponse>;
  /** Subscription checkout: resolves the subscription id. */
  createSubscription(body: CreateSubscriptionRequest, opts?: GatewayCallOptions): Promise<string>;
  /** Subscription checkout: the subscriptions the merchant console lists. */
  getSubscription(subscriptionId: string, opts?: GatewayCallOptions): Promise<Subscription>;
  /** Subscription checkout: a first billing that failed cancels its subscription. */
  setSubscriptionStatus(
    input: { subscriptionId: string; status: 'Actived' | 'Canceled' },
    opts?: GatewayCallOptions,
  ): Promise<{ id: string }>;
  /** Subscription checkout: a first billing left waiting (`Opened`) is canceled itself. */
  cancelBilling(billingId: string, opts?: GatewayCallOptions): Promise<string>;
  /** Subscription checkout: the billings (newest first) of this merchant. */
  searchBillings(
    query?: {
      status?: BillingStatus;
      expirationDateRangeStartDate?: string;
      expirationDateRangeEndDate?: string;
      orderBy?: string;
      page?: number;
      limit?: number;
    },
    opts?: GatewayCallOptions,
  ): Promise<BillingSearchResponse>;
  /** A subscription left unknown by a crash: found again by its order number. */
  searchSubscriptions(
    query?: { planName?: string; orderBy?: string; page?: number; limit?: number },
    opts?: GatewayCallOptions,
  ): Promise<SubscriptionSearchResponse>;
  /**
   * A webhook is confirmed against the ledger's sale of its NSU and authorization code (its
   * NSU alone for a sale with no code: the gateway refuses an empty one).
   */
  searchConcilByCode(
    query: { accountNumber: string | number; nsu: string; codAuth?: string },
    opts?: GatewayCallOptions,
  ): Promise<ConcilInstallmentRow[]>;
  /** Timed-out payments: the ledger says whether they happened (Integration API). */
  searchConcilByOperationDate(
    query: { accountNumber: string | number; startDate: string; endDate: string },
    opts?: GatewayCallOptions,
  ): Promise<ConcilSummaryRow[]>;
}
