import { z } from 'zod';
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

/** Every `/v1` list is a page: `{data, hasMore}`, newest first. */
const SessionListSchema = z
  .object({ data: z.array(MerchantSessionSchema), hasMore: z.boolean() })
  .transform((o) => o.data);

export type MerchantResult<T> =
  { ok: true; value: T } | { ok: false; status: number; error: string };

export interface MerchantClient {
  /** With an `Idempotency-Key`, a retry of a lost answer gets the same session back. */
  createSession(
    body: CreateSessionBody,
    idempotencyKey?: string,
  ): Promise<MerchantResult<CreatedSession>>;
  getSession(id: string): Promise<MerchantResult<MerchantSession>>;
  listSessions(): Promise<MerchantResult<MerchantSession[]>>;
}

const CreatedSessionSchema = z.looseObject({
  id: z.string(),
  clientSecret: z.string(),
  status: z.string(),
  amount: z.number(),
  expiresAt: z.string(),
});

/**
 * The merchant side of the BFF: server to server, with the merchant secret. The secret stays
 * on this server; the browser only ever sees a session's client secret.
 */
export function createMerchantClient(opts: {
  bffUrl: string;
  merchantSecret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): MerchantClient {
  const doFetch = opts.fetch ?? fetch;
  const base = opts.bffUrl.replace(/\/$/, '');

  async function call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<MerchantResult<T>> {
    let res: Response;
    try {
      res = await doFetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${opts.merchantSecret}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...extraHeaders,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (err) {
      return { ok: false, status: 0, error: `BFF unreachable: ${(err as Error).message}` };
    }
    const text = await res.text();
    if (!res.ok) return { ok: false, status: res.status, error: text.slice(0, 500) };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, status: res.status, error: 'BFF answered something that is not JSON' };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      return {
        ok: false,
        status: res.status,
        error: `unexpected BFF answer: ${parsed.error.message}`,
      };
    }
    return { ok: true, value: parsed.data };
  }

  return {
    createSession: (body, idempotencyKey) =>
      call(
        'POST',
        '/v1/checkout-sessions',
        CreatedSessionSchema,
        body,
        idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
      ) as Promise<MerchantResult<CreatedSession>>,
    getSession: (id) =>
      call('GET', `/v1/checkout-sessions/${encodeURIComponent(id)}`, MerchantSessionSchema),
    listSessions: () => call('GET', '/v1/checkout-sessions', SessionListSchema),
  };
}
