import type { z } from 'zod';
import type { Clock } from '../lib/clock';
import { AnswerTooLargeError, exchange, keepAliveAgents } from '../lib/http-exchange';
import {
  GatewayDeclinedError,
  GatewayNetworkError,
  GatewayProtocolError,
  GatewayTimeoutError,
  GatewayValidationError,
  gatewayErrorFrom,
  type GatewayError,
  type GatewayErrorItem,
} from './errors';
import { APPROVED_RETURN_CODE } from './schemas';
import { causeCode, TokenManager, type TokenCredentials } from './token-manager';

/*
 * The gateway client's transport: one `call(spec)` per operation. `client.ts` puts together the
 * tables of operations built on it, one file per family (`client-payments.ts`,
 * `client-recurrence.ts`, `client-integration.ts`; the stripe-node shape: a small transport,
 * operations as data).
 */

export interface GatewayCredentials {
  userName: string;
  password: string;
}

export interface GatewayClientOptions {
  /** `{base_url}` of the spec: Gateway API (`/v1/…`) and its token operation. */
  gatewayBaseUrl: string;
  /** `{integration_url}`: reconciliation, bank slips, webhooks. Defaults to `gatewayBaseUrl`. */
  integrationBaseUrl?: string;
  /**
   * Credentials per API family. `recurrence` (plans, subscriptions, billings; token from the
   * Gateway token operation) and `integration` (token from `/api/authentication/login` at
   * `integrationBaseUrl`) fall back to `gateway` when absent.
   */
  credentials: {
    gateway: GatewayCredentials;
    recurrence?: GatewayCredentials;
    integration?: GatewayCredentials;
  };
  /** Injected fetch (tests, proxies). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Connections kept open per gateway host (node:http keep-alive agents). 64. */
  maxSockets?: number;
  /** Default per-call timeout, covering token wait, request and reading the answer. 30 s. */
  timeoutMs?: number;
  /** Clock for token expiry. Default: system time. */
  clock?: Clock;
  /** Share one token cache between clients; by default each client has its own. */
  tokenManager?: TokenManager;
  /** See `TokenManagerOptions.refreshBeforeMs`. Ignored when `tokenManager` is given. */
  refreshBeforeMs?: number;
}

export interface GatewayCallOptions {
  /** Overrides the client's default timeout for this call. */
  timeoutMs?: number;
  /**
   * Sent as the `Idempotency-Key` header. The spec does not define one, so the real gateway
   * may ignore it; the client never auto-retries money-moving calls either way.
   */
  idempotencyKey?: string;
}

/** Which credentials and base URL an operation uses. */
export type ApiFamily = 'gateway' | 'recurrence' | 'integration';

export type QueryValue = string | number | boolean | undefined;

export interface RequestSpec<S extends z.ZodType> {
  operation: string;
  family: ApiFamily;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  schema: S;
  /** Payment answers: a `returnCode` other than `00` is thrown as `GatewayDeclinedError`. */
  declines?: boolean;
  /** Path ids (recurrence: 1 to 36 characters), checked before anything is sent. */
  pathIds?: Record<string, string>;
  /** A failure the gateway reports inside a 2xx body (bank slip details). */
  check?: (data: z.output<S>, status: number) => GatewayError | undefined;
}

/** Low-level errors that prove the request never left this process. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

/** Identifier path parameters of the recurrence operations: max 36 (spec, Limits). */
const MAX_PATH_ID = 36;

/**
 * The transport every operation goes through: tokens from a `TokenManager` (a `401` means "not
 * processed": one refresh and one retry, never more), one timeout covering token wait,
 * request and answer, errors as the `GatewayError` family, answers parsed by the operation's
 * schema (a 2xx of the wrong shape is a `GatewayProtocolError`; with `declines`, a payment
 * answer whose return code is not `00` is a `GatewayDeclinedError`).
 */
export function createTransport(opts: GatewayClientOptions) {
  const fetchFn: typeof fetch = opts.fetch ?? ((...args) => fetch(...args));
  // Calls go over node:http(s) keep-alive agents unless a fetch is injected (tests, proxies).
  const agents = opts.fetch ? undefined : keepAliveAgents(opts.maxSockets ?? 64);
  const defaultTimeoutMs = opts.timeoutMs ?? 30_000;
  const gatewayBase = trimSlash(opts.gatewayBaseUrl);
  const integrationBase = trimSlash(opts.integrationBaseUrl ?? opts.gatewayBaseUrl);
  const tokens =
    opts.tokenManager ??
    new TokenManager({
      fetch: fetchFn,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.refreshBeforeMs !== undefined ? { refreshBeforeMs: opts.refreshBeforeMs } : {}),
      timeoutMs: defaultTimeoutMs,
    });
  const gw = opts.credentials.gateway;
  const creds: Record<ApiFamily, TokenCredentials> = {
    gateway: { baseUrl: gatewayBase, family: 'gateway', ...gw },
    recurrence: { baseUrl: gatewayBase, family: 'gateway', ...(opts.credentials.recurrence ?? gw) },
    integration: {
      baseUrl: integrationBase,
      family: 'integration',
      ...(opts.credentials.integration ?? gw),
    },
  };

  async function call<S extends z.ZodType>(
    spec: RequestSpec<S>,
    callOpts: GatewayCallOptions = {},
  ): Promise<z.output<S>> {
    const { operation } = spec;
    for (const [name, id] of Object.entries(spec.pathIds ?? {})) {
      if (typeof id !== 'string' || id.length < 1 || id.length > MAX_PATH_ID) {
        throw new GatewayValidationError({
          status: 0,
          operation,
          items: [{ tag: name, description: `${name}: must be 1 to ${MAX_PATH_ID} characters` }],
        });
      }
    }
    const timeoutMs = callOpts.timeoutMs ?? defaultTimeoutMs;
    // One deadline for the whole call (token wait, request, answer). No AbortController: in
    // Node 20 each one costs about as much CPU as the rest of a loopback request.
    let expired = false;
    const onExpiry = new Set<() => void>();
    const timer = setTimeout(() => {
      expired = true;
      for (const f of onExpiry) f();
    }, timeoutMs);
    const cred = creds[spec.family];
    const base = spec.family === 'integration' ? integrationBase : gatewayBase;
    const url = base + spec.path + queryString(spec.query);
    // True once the current attempt's request is on a connected socket (node:http), or from
    // the moment it starts (an injected fetch, which does not tell): a timeout or network
    // error after that may have reached the gateway. Before it (waiting for one of the
    // agent's connections, or for a connect that never completes) the gateway has nothing.
    let sent = false;

    const timeout = () => new GatewayTimeoutError({ status: 0, operation, sent, timeoutMs });

    /** Waits for `p` unless the call's time runs out first; `cancel` stops the work behind it. */
    const inTime = <T>(p: Promise<T>, cancel?: (err: Error) => void): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (expired) return reject(timeout());
        const onAbort = () => {
          const err = timeout();
          cancel?.(err);
          reject(err);
        };
        onExpiry.add(onAbort);
        p.then(
          (v) => {
            onExpiry.delete(onAbort);
            resolve(v);
          },
          (e: unknown) => {
            onExpiry.delete(onAbort);
            reject(e);
          },
        );
      });

    const send = async (token: string): Promise<{ status: number; text: string }> => {
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
      };
      const body = spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (callOpts.idempotencyKey) headers['idempotency-key'] = callOpts.idempotencyKey;
      if (expired) throw timeout();
      try {
        if (agents) {
          const onSent = () => void (sent = true);
          const x = exchange(url, { method: spec.method, headers, body, agents, onSent });
          return await inTime(x.answer, (err) => x.abort(err));
        }
        sent = true;
        const ac = new AbortController();
        const res = await inTime(
          fetchFn(url, {
            method: spec.method,
            headers,
            ...(body !== undefined ? { body } : {}),
            signal: ac.signal,
          }),
          (err) => ac.abort(err),
        );
        return { status: res.status, text: await inTime(res.text(), (err) => ac.abort(err)) };
      } catch (err) {
        if (err instanceof GatewayTimeoutError || expired) throw timeout();
        if (err instanceof AnswerTooLargeError) {
          // It answered (2xx or not): for a call that moves money, the outcome is unknown.
          throw new GatewayProtocolError({
            status: err.status,
            operation,
            message: `${operation}: ${err.message}, not read`,
            cause: err,
          });
        }
        const code = causeCode(err);
        throw new GatewayNetworkError({
          status: 0,
          operation,
          sent: sent && !NOT_SENT_CODES.has(code),
          message: `${operation}: could not reach ${new URL(url).origin} (${code})`,
          cause: err,
        });
      }
    };

    try {
      let token = await inTime(tokens.getToken(cred));
      let res = await send(token);
      if (res.status === 401) {
        // A 401 means the gateway did not process the request: one refresh, one retry.
        sent = false;
        token = await inTime(tokens.refreshAfterRejection(cred, token));
        res = await send(token);
      }
      const body = parseBody(res.text);
      if (res.status < 200 || res.status > 299) {
        throw gatewayErrorFrom(res.status, body.ok ? body.value : res.text, operation);
      }
      if (!body.ok) {
        throw new GatewayProtocolError({
          status: res.status,
          operation,
          items: [{ tag: 'body', description: 'the answer is not valid JSON' }],
        });
      }
      const parsed = spec.schema.safeParse(body.value);
      if (!parsed.success) {
        throw new GatewayProtocolError({
          status: res.status,
          operation,
          items: issuesToItems(parsed.error),
        });
      }
      const data = parsed.data as z.output<S>;
      if (spec.declines) throwIfDeclined(operation, data, res.status);
      const failure = spec.check?.(data, res.status);
      if (failure) throw failure;
      return data;
    } finally {
      clearTimeout(timer);
    }
  }

  return { tokens, call, close: () => agents?.destroy() };
}

export type Transport = ReturnType<typeof createTransport>;

/** `threeDs.status` of an answer that asks for a challenge. */
export const THREE_DS_CHALLENGE_STATUS = 'PENDING_AUTHENTICATION';

/**
 * A payment answer is a decline when its authorization carries a return code other than `00`
 * — unless `threeDs` asks for a challenge: then the `paymentAuthorization` beside it (the spec
 * says every 200 of `/v1/payments/3ds` has both) only waits for authentication, whatever its
 * return code. `threeDs` is read first.
 */
function throwIfDeclined(operation: string, data: unknown, status: number): void {
  const answer = data as {
    paymentAuthorization?: { returnCode: string; description?: string | null };
    threeDs?: { status?: string };
  };
  if (answer.threeDs?.status === THREE_DS_CHALLENGE_STATUS) return;
  const auth = answer.paymentAuthorization;
  if (auth && auth.returnCode !== APPROVED_RETURN_CODE) {
    throw new GatewayDeclinedError({
      operation,
      status,
      returnCode: auth.returnCode,
      description: auth.description ?? '',
      response: data,
    });
  }
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function issuesToItems(error: z.ZodError): GatewayErrorItem[] {
  return error.issues.slice(0, 20).map((i) => {
    const tag = i.path.map(String).join('.') || 'body';
    return { tag, description: `${tag}: ${i.message}` };
  });
}

/** Encodes a query (`?a=1&b=x`), dropping undefined values; '' when nothing is left. */
export function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
