/**
 * The gateway client's error family, modelled on stripe-node: one base class, one subclass per
 * way a call can fail, and one factory (`gatewayErrorFrom`) from an HTTP answer to the class.
 *
 * Messages never contain a token, a password or card data: they are built from the operation
 * name, the status and the gateway's own error descriptions.
 */

/** One entry of the spec's error array. */
export interface GatewayErrorItem {
  tag: string;
  description: string;
}

/** The tag the spec gives to a 3DS authentication failure. */
export const THREE_DS_FAIL_TAG = '3DS Fail';

/** Longest gateway text we copy into an error, so a huge HTML error page stays out of logs. */
const MAX_TEXT = 500;

export interface GatewayErrorInit {
  status: number;
  items?: GatewayErrorItem[];
  operation: string;
  message?: string;
  cause?: unknown;
}

/** Base of every error the gateway client throws. */
export class GatewayError extends Error {
  /** HTTP status of the answer; 0 when there was no answer (network, timeout). */
  readonly status: number;
  /** The gateway's error array (or one item we built from a non-array body). */
  readonly items: GatewayErrorItem[];
  /** The client method that failed, e.g. `createCreditPayment`, or `token`. */
  readonly operation: string;

  constructor(init: GatewayErrorInit) {
    const items = init.items ?? [];
    super(init.message ?? defaultMessage(init.operation, init.status, items), {
      cause: init.cause,
    });
    this.name = new.target.name;
    this.status = init.status;
    this.items = items;
    this.operation = init.operation;
  }
}

/** `400` with an item tagged `3DS Fail`: the cardholder could not be authenticated. */
export class GatewayThreeDsError extends GatewayError {}

/** `401`: no valid token (after one refresh and one retry), or the credentials were refused. */
export class GatewayUnauthorizedError extends GatewayError {}

/** Any other `4xx`: the request was refused; sending it again unchanged will not help. */
export class GatewayValidationError extends GatewayError {}

/** `5xx`: the gateway failed. For money-moving calls the outcome is unknown. */
export class GatewayInternalError extends GatewayError {}

/**
 * A 2xx (or an unexpected 1xx/3xx) whose body does not match the spec's shape. For a
 * money-moving call the gateway may have processed it: treat the outcome as unknown.
 */
export class GatewayProtocolError extends GatewayError {}

/**
 * The connection failed. `sent` is false only when the failure proves nothing was delivered
 * (connection refused, host not found); otherwise the request may have reached the gateway.
 */
export class GatewayNetworkError extends GatewayError {
  readonly sent: boolean;
  constructor(init: GatewayErrorInit & { sent: boolean }) {
    super(init);
    this.sent = init.sent;
  }
}

/**
 * No answer within the timeout. `sent` is true once the HTTP request had started (any abort
 * after `fetch` was called), so money-moving calls must not be retried blindly; false when
 * the time ran out before sending (e.g. waiting for a token).
 */
export class GatewayTimeoutError extends GatewayError {
  readonly sent: boolean;
  readonly timeoutMs: number;
  constructor(init: GatewayErrorInit & { sent: boolean; timeoutMs: number }) {
    super({
      ...init,
      message:
        init.message ??
        `${init.operation}: no answer within ${init.timeoutMs} ms (${init.sent ? 'request sent, outcome unknown' : 'request not sent'})`,
    });
    this.sent = init.sent;
    this.timeoutMs = init.timeoutMs;
  }
}

/** What a declined authorization looks like in a payment or validate answer. */
export interface DeclinedAuthorization {
  paymentAuthorization?: { returnCode: string; description: string } | undefined;
}

/**
 * A `200` whose `paymentAuthorization.returnCode` is not `00`: the issuer answered "no".
 * Thrown by the payment methods and `validate3ds`; `response` is the whole parsed answer
 * (payment id, authorization code… for the records).
 */
export class GatewayDeclinedError<R = unknown> extends GatewayError {
  readonly returnCode: string;
  readonly description: string;
  readonly response: R;
  constructor(init: {
    operation: string;
    returnCode: string;
    description: string;
    response: R;
    status?: number;
  }) {
    super({
      status: init.status ?? 200,
      operation: init.operation,
      items: [{ tag: init.returnCode, description: init.description }],
      message: `${init.operation}: declined ${init.returnCode} ${clip(init.description)}`,
    });
    this.returnCode = init.returnCode;
    this.description = init.description;
    this.response = init.response;
  }
}

/**
 * Turns a non-2xx answer into an error item list. Accepts the spec's array, a single
 * `{tag, description}`, the bank slip shape `{success:false, message}`, or any text.
 */
export function errorItemsFrom(body: unknown): GatewayErrorItem[] {
  if (Array.isArray(body)) {
    const items = body.filter(isItemLike).map(toItem);
    if (items.length > 0) return items;
  } else if (isItemLike(body)) {
    return [toItem(body)];
  } else if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    for (const k of ['message', 'description', 'error', 'title']) {
      if (typeof o[k] === 'string' && o[k]) return [{ tag: '', description: clip(o[k]) }];
    }
  } else if (typeof body === 'string' && body.trim()) {
    return [{ tag: '', description: clip(body.trim()) }];
  }
  return [];
}

/**
 * The single factory from an HTTP answer to an error class:
 * 401 → Unauthorized; 400 with a `3DS Fail` item → ThreeDs; other 4xx → Validation;
 * 5xx → Internal; anything else (1xx, 3xx, a 2xx handed in by mistake) → Protocol.
 */
export function gatewayErrorFrom(status: number, body: unknown, operation: string): GatewayError {
  const items = errorItemsFrom(body);
  const init = { status, items, operation };
  if (status === 401) return new GatewayUnauthorizedError(init);
  if (status >= 400 && status < 500) {
    if (items.some((i) => i.tag === THREE_DS_FAIL_TAG)) return new GatewayThreeDsError(init);
    return new GatewayValidationError(init);
  }
  if (status >= 500 && status < 600) return new GatewayInternalError(init);
  return new GatewayProtocolError(init);
}

function isItemLike(v: unknown): v is { tag?: unknown; description?: unknown } {
  return (
    !!v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    ('tag' in v || 'description' in v) &&
    (typeof (v as { description?: unknown }).description === 'string' ||
      typeof (v as { tag?: unknown }).tag === 'string')
  );
}

function toItem(v: { tag?: unknown; description?: unknown }): GatewayErrorItem {
  return {
    tag: typeof v.tag === 'string' ? v.tag : '',
    description: typeof v.description === 'string' ? clip(v.description) : '',
  };
}

function clip(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}

function defaultMessage(operation: string, status: number, items: GatewayErrorItem[]): string {
  const detail = items
    .map((i) => (i.tag && !i.description.startsWith(i.tag) ? `${i.tag}: ` : '') + i.description)
    .filter(Boolean)
    .join('; ');
  return `${operation}: ${status === 0 ? 'no answer' : `HTTP ${status}`}${detail ? ` — ${detail}` : ''}`;
}
