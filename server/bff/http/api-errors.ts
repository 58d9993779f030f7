import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiError, ApiErrorType } from '../../../contract/events';
import type { ErrorItem } from '../../lib/http';
import type { BffEnv } from '../context';

/**
 * Every code `/v1/*` answers, with its type: the stable list of docs/merchant-api.md (a test
 * checks the two agree). A new code is added here and there, never renamed.
 */
export const API_ERROR_CODES = {
  parameter_invalid: 'invalid_request_error',
  parameter_missing: 'invalid_request_error',
  parameter_unknown: 'invalid_request_error',
  body_invalid_json: 'invalid_request_error',
  body_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  unauthorized: 'authentication_error',
  resource_missing: 'not_found_error',
  route_not_found: 'not_found_error',
  conflict: 'conflict_error',
  idempotency_key_invalid: 'idempotency_error',
  idempotency_key_in_use: 'idempotency_error',
  idempotency_key_reused: 'idempotency_error',
  idempotency_answer_unreadable: 'idempotency_error',
  rate_limited: 'rate_limit_error',
  gateway_unavailable: 'gateway_error',
  internal_error: 'api_error',
} as const satisfies Record<string, ApiErrorType>;
export type ApiErrorCode = keyof typeof API_ERROR_CODES;

function codeOf(status: number, items: ErrorItem[]): ApiErrorCode {
  const first = items[0];
  const tag = first?.tag ?? '';
  const text = first?.description ?? '';
  if (/^idempotency-key$/i.test(tag)) {
    if (status === 409 && /can no longer be read/.test(text))
      return 'idempotency_answer_unreadable';
    if (status === 409) return 'idempotency_key_in_use';
    if (status === 422) return 'idempotency_key_reused';
    return 'idempotency_key_invalid';
  }
  switch (status) {
    case 400:
      if (tag === 'body' && /not valid JSON/.test(text)) return 'body_invalid_json';
      if (/unknown field/.test(text)) return 'parameter_unknown';
      if (/is required|: Required|received undefined/i.test(text)) return 'parameter_missing';
      return 'parameter_invalid';
    case 401:
      return 'unauthorized';
    case 404:
      return tag === 'path' ? 'route_not_found' : 'resource_missing';
    case 409:
      return 'conflict';
    case 413:
      return 'body_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 502:
    case 503:
    case 504:
      return 'gateway_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'parameter_invalid';
  }
}

/** Whether a JSON body is the spec's error array (`[{tag, description}]`). */
function isErrorItems(body: unknown): body is ErrorItem[] {
  return (
    Array.isArray(body) &&
    body.every(
      (i) =>
        typeof i === 'object' &&
        i !== null &&
        typeof (i as ErrorItem).tag === 'string' &&
        typeof (i as ErrorItem).description === 'string',
    )
  );
}

/** The error object for an answer (its items name the field and the rule). */
export function apiErrorOf(
  status: number,
  items: ErrorItem[],
  requestId: string,
  code?: ApiErrorCode,
): ApiError {
  const c = code ?? codeOf(status, items);
  const param = items.find((i) => i.tag && !['body', 'path', ''].includes(i.tag))?.tag;
  return {
    error: {
      type: API_ERROR_CODES[c],
      code: c,
      message: items.map((i) => i.description).join('; ') || 'the request failed',
      ...(param ? { param } : {}),
      requestId,
    },
  };
}

/**
 * `/v1/*` answers one error object, `{"error": {type, code, message, param, requestId}}`,
 * whatever produced the error (validation, authentication, a route, the body limit, a rate
 * limit, not found, a thrown bug). The routes keep writing the spec's error items they share
 * with the frame API; this turns them into the merchant API's object at one place.
 */
export function merchantApiErrors(): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (res.status < 400) return;
    const type = res.headers.get('content-type') ?? '';
    let items: ErrorItem[] = [];
    if (type.includes('json')) {
      const body: unknown = await res
        .clone()
        .json()
        .catch(() => null);
      if (body && typeof body === 'object' && 'error' in body) return;
      if (isErrorItems(body)) items = body;
    }
    const headers = new Headers(res.headers);
    headers.set('content-type', 'application/json');
    headers.delete('content-length');
    const error = apiErrorOf(res.status, items, c.get('requestId'));
    c.res = new Response(JSON.stringify(error), {
      status: res.status as ContentfulStatusCode,
      headers,
    });
  };
}
