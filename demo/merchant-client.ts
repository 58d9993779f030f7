import { z } from 'zod';
import { createMerchantApiClient } from '../server/bff/client';
import type { CreateSessionBody, CreatedSession } from '../contract/checkout';

/**
 * What the demo reads of a session from the BFF's merchant API. Loose on purpose: the console
 * shows what it knows and ignores fields added later.
 */
export const MerchantAttemptSchema = z.looseObject({
  id: z.string().optional(),
  method: z.string().optional(),
  status: z.string(),
  installments: z.number().nullish(),
  amount: z.number().nullish(),
  paymentId: z.string().nullish(),
  nsu: z.string().nullish(),
  authorizationCode: z.string().nullish(),
  failureCode: z.string().nullish(),
  returnCode: z.string().nullish(),
  createdAt: z.string().nullish(),
  canceledAt: z.string().nullish(),
  /** A subscription's first billing (BFF: attempts[].firstBilling). */
  firstBilling: z
    .looseObject({ id: z.string(), status: z.string().nullish(), amount: z.number().nullish() })
    .nullish(),
  brand: z.string().nullish(),
  last4: z.string().nullish(),
});
export type MerchantAttempt = z.infer<typeof MerchantAttemptSchema>;

export const MerchantSessionSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  amount: z.number().nullish(),
  origin: z.string().nullish(),
  referenceTransaction: z.string().nullish(),
  createdAt: z.string().nullish(),
  expiresAt: z.string().nullish(),
  attempts: z.array(MerchantAttemptSchema).optional(),
});
export type MerchantSession = z.infer<typeof MerchantSessionSchema>;

export type MerchantResult<T> =
  { ok: true; value: T } | { ok: false; status: number; error: string };

/**
 * Whether the BFF refused a creation for good: a 4xx made nothing, and the BFF keeps that
 * answer for its `Idempotency-Key`, so a retry must start over with a new key and a body made
 * again. Not a 409 (the key's first request still running), 408 or 429 (sent again as is),
 * nor a 5xx or no answer at all (it may have been made: the retry keeps key and body).
 */
export function refusedForGood(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
}

export interface MerchantClient {
  /** With an `Idempotency-Key`, a retry of a lost answer gets the same session back. */
  createSession(
    body: CreateSessionBody,
    idempotencyKey?: string,
  ): Promise<MerchantResult<CreatedSession>>;
  getSession(id: string): Promise<MerchantResult<MerchantSession>>;
  listSessions(): Promise<MerchantResult<MerchantSession[]>>;
  /** Ends an open session now (`200`, as it is once expired); `409` when it is not open. */
  expireSession(id: string): Promise<MerchantResult<MerchantSession>>;
}

/**
 * The merchant side of the BFF: server to server, with the merchant secret, through the typed
 * merchant API client (server/bff/client.ts, generated from the BFF's OpenAPI document). The
 * secret stays on this server; the browser only ever sees a session's client secret.
 */
export function createMerchantClient(opts: {
  bffUrl: string;
  merchantSecret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): MerchantClient {
  const api = createMerchantApiClient(opts);
  const signal = () => AbortSignal.timeout(opts.timeoutMs ?? 10_000);

  async function call<T>(
    request: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<MerchantResult<T>> {
    try {
      const { data, error, response } = await request();
      if (data !== undefined && response.ok) return { ok: true, value: data };
      const message = (error as { error?: { message?: string } } | undefined)?.error?.message;
      return {
        ok: false,
        status: response.status,
        error: (message ?? JSON.stringify(error)).slice(0, 500),
      };
    } catch (err) {
      return { ok: false, status: 0, error: `BFF unreachable: ${(err as Error).message}` };
    }
  }

  return {
    createSession: (body, idempotencyKey) =>
      call(() =>
        api.POST('/v1/checkout-sessions', {
          body: body as never,
          params: { header: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} },
          signal: signal(),
        }),
      ) as Promise<MerchantResult<CreatedSession>>,
    getSession: (id) =>
      call(() =>
        api.GET('/v1/checkout-sessions/{id}', { params: { path: { id } }, signal: signal() }),
      ),
    expireSession: (id) =>
      call(() =>
        api.POST('/v1/checkout-sessions/{id}/expire', {
          params: { path: { id } },
          signal: signal(),
        }),
      ),
    listSessions: async () => {
      const page = await call(() =>
        api.GET('/v1/checkout-sessions', { params: { query: { limit: 20 } }, signal: signal() }),
      );
      return page.ok ? { ok: true, value: page.value.data } : page;
    },
  };
}
