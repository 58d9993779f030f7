/** Every route the fuzz suite drives, with what a valid call looks like (to mutate it). */

export interface FuzzTargets {
  bffUrl: string;
  sandboxUrl: string;
  merchantSecret: string;
  clientSecret: string;
  sessionId: string;
  challengeId: string;
  gatewayToken: string;
  integrationToken: string;
  webhookBasic: string;
  /** A well-formed (if used) card ciphertext. */
  encryptedCard: string;
}

export interface FuzzRoute {
  app: 'bff' | 'sandbox';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** `:name` segments are generated; `*` is a file name. */
  path: string;
  /**
   * `json`: the spec's `[{tag, description}]`; `html`: a browser page (or that JSON);
   * `envelope`: the bill issuer API's `{success: false, message}`; `api`: the merchant API's
   * `{error: {type, code, message, requestId}}`.
   */
  shape: 'json' | 'html' | 'envelope' | 'api';
  /** Authorization values that let a request past authentication. */
  auth: (t: FuzzTargets) => string[];
  valid?: (t: FuzzTargets) => unknown;
  ids?: (t: FuzzTargets) => string[];
  queryKeys?: string[];
  contentType?: string;
}

const none = () => [];
const merchant = (t: FuzzTargets) => [`Bearer ${t.merchantSecret}`];
const frame = (t: FuzzTargets) => [`Bearer ${t.clientSecret}`];
const gateway = (t: FuzzTargets) => [`Bearer ${t.gatewayToken}`];
const integration = (t: FuzzTargets) => [`Bearer ${t.integrationToken}`];

const DEVICE = {
  language: 'pt-BR',
  javaEnabled: false,
  colorDepth: 24,
  screenHeight: 900,
  screenWidth: 1440,
  timezoneOffset: 180,
  userAgent: 'fuzz',
};

const plainCard = {
  cardholderName: 'MARIA SILVA',
  number: '4000000000002701',
  securityCode: '123',
  expirationMonth: '12',
  expirationYear: '35',
};

const gatewayPayment = (transactionType: string) => ({
  payment: { transactionType, amount: 1000, productType: 'avista', installments: 1 },
  referenceTransaction: 'fuzz-1',
  sellerInfo: { codeAntiFraud: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' },
  cardInfo: plainCard,
});

const bff = (
  method: FuzzRoute['method'],
  path: string,
  rest: Partial<FuzzRoute> = {},
): FuzzRoute => ({ app: 'bff', method, path, shape: 'json', auth: none, ...rest });
const api = (
  method: FuzzRoute['method'],
  path: string,
  rest: Partial<FuzzRoute> = {},
): FuzzRoute => ({ app: 'bff', method, path, shape: 'api', auth: none, ...rest });
const sandbox = (
  method: FuzzRoute['method'],
  path: string,
  rest: Partial<FuzzRoute> = {},
): FuzzRoute => ({ app: 'sandbox', method, path, shape: 'json', auth: none, ...rest });

/**
 * Left out, on purpose: `POST /__sandbox/reset` (wipes the tokens the other cases use),
 * `POST /__sandbox/faults` and `/__sandbox/outcomes` (they make the next calls fail or answer
 * 500 by design: the point of a fault).
 */
export function routeTable(): FuzzRoute[] {
  return [
    // ---------------------------------------------------------------- BFF
    bff('GET', '/healthz'),
    bff('GET', '/readyz'),
    api('POST', '/v1/checkout-sessions', {
      auth: merchant,
      valid: () => ({
        amount: 1000,
        origin: 'http://shop.test:3000',
        maxInstallments: 3,
        metadata: { order: 'fuzz-1' },
      }),
    }),
    api('GET', '/v1/checkout-sessions', {
      auth: merchant,
      queryKeys: ['limit', 'status', 'starting_after', 'ending_before'],
    }),
    api('GET', '/v1/checkout-sessions/:id', { auth: merchant, ids: (t) => [t.sessionId] }),
    api('POST', '/v1/checkout-sessions/:id/expire', { auth: merchant }),
    api('GET', '/v1/subscriptions', {
      auth: merchant,
      queryKeys: ['limit', 'starting_after', 'ending_before'],
    }),
    api('POST', '/v1/subscriptions/:id/cancel', { auth: merchant }),
    api('GET', '/v1/webhook-notifications', {
      auth: merchant,
      queryKeys: ['limit', 'after', 'starting_after', 'ending_before'],
    }),
    api('GET', '/v1/events', {
      auth: merchant,
      queryKeys: ['limit', 'type', 'starting_after', 'ending_before'],
    }),
    api('GET', '/v1/events/:id', { auth: merchant }),
    api('POST', '/v1/events/:id/redeliver', { auth: merchant }),
    bff('GET', '/checkout/api/session', { auth: frame }),
    bff('GET', '/checkout/api/public-key', { auth: frame }),
    bff('POST', '/checkout/api/pay', {
      auth: frame,
      valid: (t) => ({
        method: 'credit',
        installments: 1,
        encryptedCard: t.encryptedCard,
        cardholderName: 'MARIA SILVA',
        deviceInfo: DEVICE,
        fingerprint: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      }),
    }),
    bff('POST', '/checkout/api/challenge/complete', {
      auth: frame,
      valid: (t) => ({ challengeId: t.challengeId, encryptedCard: t.encryptedCard }),
    }),
    bff('POST', '/checkout/api/challenge/cancel', {
      auth: frame,
      valid: (t) => ({ challengeId: t.challengeId, reason: 'closed' }),
    }),
    bff('GET', '/checkout/frame', { shape: 'html', queryKeys: ['session', 'locale'] }),
    bff('GET', '/checkout/challenge/:id', {
      shape: 'html',
      ids: (t) => [t.challengeId],
      queryKeys: ['locale'],
    }),
    bff('POST', '/checkout/challenge/:id', {
      shape: 'html',
      ids: (t) => [t.challengeId],
      contentType: 'application/x-www-form-urlencoded',
    }),
    bff('POST', '/checkout/challenge/:id/return', {
      shape: 'html',
      ids: (t) => [t.challengeId],
      contentType: 'application/x-www-form-urlencoded',
    }),
    bff('POST', '/webhooks/gateway', {
      auth: (t) => [t.webhookBasic],
      valid: () => ({
        movementId: 1,
        nsu: '123',
        codAuth: 'A1',
        installmentNumber: 1,
        moment: '2026-01-01T10:00:00-03:00',
        type: 'Payment',
        oldValue: null,
        newValue: 'Authorized',
      }),
    }),
    bff('GET', '/widget/*'),
    bff('GET', '/frame/*'),
    // ---------------------------------------------------------------- sandbox
    sandbox('POST', '/api/auth/token', { valid: () => ({ userName: 'sandbox', password: 'x' }) }),
    sandbox('POST', '/api/authentication/login', {
      valid: () => ({ userName: 'sandbox', password: 'x' }),
    }),
    sandbox('GET', '/v1/cards/public-key', { auth: gateway }),
    sandbox('POST', '/v1/cards/vault', { auth: gateway, valid: () => ({ cardInfo: plainCard }) }),
    sandbox('POST', '/v1/payments', { auth: gateway, valid: () => gatewayPayment('credit') }),
    sandbox('POST', '/v1/payments/3ds', { auth: gateway, valid: () => gatewayPayment('debit') }),
    sandbox('POST', '/v1/payments/3ds/validate', {
      auth: gateway,
      valid: () => ({
        authenticationTransactionId: '00000000-0000-4000-8000-000000000000',
        pares: 'x',
        ...gatewayPayment('debit'),
      }),
    }),
    sandbox('GET', '/v1/refund/list', { auth: gateway, queryKeys: ['paymentId'] }),
    sandbox('POST', '/v1/recurrences/plans', {
      auth: gateway,
      valid: () => ({
        name: 'Plano',
        description: 'fuzz',
        amount: 10,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
        attempts: 1,
      }),
    }),
    sandbox('GET', '/v1/recurrences/plans', { auth: gateway, queryKeys: ['limit', 'orderBy'] }),
    sandbox('GET', '/v1/recurrences/plans/:id', { auth: gateway }),
    sandbox('POST', '/v1/recurrences/plans/:id', { auth: gateway, valid: () => ({ amount: 5 }) }),
    sandbox('POST', '/v1/recurrences/plans/:id/status', {
      auth: gateway,
      valid: () => ({ status: 'Inactive' }),
    }),
    sandbox('POST', '/v1/recurrences/subscriptions', {
      auth: gateway,
      valid: () => ({ vaultId: 'x', orderNumber: 'o-1', planId: 'p' }),
    }),
    sandbox('GET', '/v1/recurrences/subscriptions', { auth: gateway, queryKeys: ['limit'] }),
    sandbox('GET', '/v1/recurrences/subscriptions/:id', { auth: gateway }),
    sandbox('POST', '/v1/recurrences/subscriptions/:id/status', {
      auth: gateway,
      valid: () => ({ status: 'Canceled' }),
    }),
    sandbox('POST', '/v1/recurrences/subscriptions/:id/vault', {
      auth: gateway,
      valid: () => ({ vaultId: 'x' }),
    }),
    sandbox('GET', '/v1/recurrences/billing', { auth: gateway, queryKeys: ['limit', 'orderBy'] }),
    sandbox('POST', '/v1/recurrences/billing/:id/cancel', { auth: gateway }),
    sandbox('POST', '/api/transaction/concil/search-by-code', {
      auth: integration,
      valid: () => ({ accountNumber: '1001', code: '1' }),
    }),
    sandbox('POST', '/api/transaction/concil/search-by-auth-code', {
      auth: integration,
      valid: () => ({ accountNumber: '1001', authCode: 'A1' }),
    }),
    sandbox('POST', '/api/transaction/concil/search-by-operation-date', {
      auth: integration,
      valid: () => ({ accountNumber: '1001', initialDate: '2026-01-01', finalDate: '2026-01-02' }),
    }),
    sandbox('POST', '/api/transaction/concil/search-by-payment-date', {
      auth: integration,
      valid: () => ({ accountNumber: '1001', initialDate: '2026-01-01', finalDate: '2026-01-02' }),
    }),
    sandbox('GET', '/api/billissuer/list/by/due-date', {
      shape: 'envelope',
      auth: integration,
      queryKeys: ['accountNumber', 'initialDate', 'finalDate'],
    }),
    sandbox('GET', '/api/billissuer/list/by/payment-date', {
      shape: 'envelope',
      auth: integration,
    }),
    sandbox('GET', '/api/billissuer/list/by/credit-date', { shape: 'envelope', auth: integration }),
    sandbox('GET', '/api/billissuer/information', {
      shape: 'envelope',
      auth: integration,
      queryKeys: ['id'],
    }),
    sandbox('POST', '/api/webhooks/subscriptions', {
      auth: integration,
      valid: () => ({ accountNumber: '1001', url: 'http://127.0.0.1:9/hook' }),
    }),
    sandbox('GET', '/api/webhooks/subscriptions', { auth: integration }),
    sandbox('DELETE', '/api/webhooks/subscriptions', { auth: integration }),
    sandbox('POST', '/acs/challenge', {
      shape: 'html',
      contentType: 'application/x-www-form-urlencoded',
    }),
    sandbox('POST', '/acs/challenge/submit', {
      shape: 'html',
      contentType: 'application/x-www-form-urlencoded',
    }),
    sandbox('GET', '/__sandbox/clock'),
    sandbox('POST', '/__sandbox/clock/advance', { valid: () => ({ minutes: 1 }) }),
    sandbox('POST', '/__sandbox/clock/reset'),
    sandbox('GET', '/__sandbox/faults'),
    sandbox('DELETE', '/__sandbox/faults'),
    sandbox('GET', '/__sandbox/outcomes'),
    sandbox('POST', '/__sandbox/cancellation-requests', {
      valid: () => ({ paymentId: 'x', description: 'fuzz' }),
    }),
    sandbox('POST', '/__sandbox/cancellation-requests/:id/decide', {
      valid: () => ({ status: 'APROVADO' }),
    }),
    sandbox('GET', '/__sandbox/vault'),
    sandbox('POST', '/__sandbox/bank-slips', {
      valid: () => ({ accountNumber: '1001', value: 10, dueDate: '2026-12-01' }),
    }),
    sandbox('POST', '/__sandbox/bank-slips/:id/pay', { valid: () => ({ value: 10 }) }),
    sandbox('GET', '/__sandbox/webhook-deliveries'),
    sandbox('GET', '/__sandbox/callback-deliveries'),
    sandbox('GET', '/__sandbox/accounts/:id/anticipation', { ids: () => ['1001'] }),
    sandbox('PUT', '/__sandbox/accounts/:id/anticipation', {
      ids: () => ['1001'],
      valid: () => ({ enabled: false }),
    }),
    sandbox('POST', '/__sandbox/webhook-deliveries/:id/redeliver'),
    sandbox('GET', '/__sandbox/reconciliation/fees'),
    sandbox('PUT', '/__sandbox/reconciliation/fees', { valid: () => ({ credit: 2.5 }) }),
    sandbox('POST', '/__sandbox/transactions/:id/block'),
    sandbox('POST', '/__sandbox/transactions/:id/unblock'),
  ];
}
