import { integrationCalls } from './client-integration';
import { paymentCalls } from './client-payments';
import { recurrenceCalls } from './client-recurrence';
import { createTransport, type GatewayClientOptions } from './transport';

export {
  queryString,
  THREE_DS_CHALLENGE_STATUS,
  type GatewayCallOptions,
  type GatewayClientOptions,
  type GatewayCredentials,
} from './transport';
export type * from './client-params';

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

    ...paymentCalls(call),
    ...recurrenceCalls(call),
    ...integrationCalls(call),
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
