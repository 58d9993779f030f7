/**
 * The events the BFF sends the merchant's server (README "Events"): what happened to a
 * checkout session, a payment, a subscription or a billing, each written in the same
 * transaction as the change it tells of, and delivered signed per Standard Webhooks.
 * Types and constants only, like the rest of `contract/`.
 */

export const EVENT_TYPES = [
  'checkout_session.succeeded',
  'checkout_session.failed',
  'checkout_session.expired',
  'payment.canceled',
  'subscription.created',
  'subscription.canceled',
  'billing.paid',
  'billing.failed',
  'billing.canceled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where an event's delivery to `BFF_EVENTS_URL` stands. `none`: no URL was configured. */
export const EVENT_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'none'] as const;
export type EventDeliveryStatus = (typeof EVENT_DELIVERY_STATUSES)[number];

/**
 * One event as delivered (the request body) and as `GET /v1/events` lists it. `data` is the
 * full public object at the moment of the change: a checkout session as
 * `GET /v1/checkout-sessions/:id` answers it, a subscription, or a billing.
 */
export interface CheckoutEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  createdAt: string;
  data: Record<string, unknown>;
}

/** One delivery attempt of an event (`GET /v1/events/:id`). */
export interface EventDeliveryAttempt {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when it could not be reached or timed out. */
  status: number | null;
  /** Why an attempt failed (`timeout`, `connection refused`, `HTTP 500`), null on 2xx. */
  error: string | null;
  durationMs: number;
}

/** An event with where its delivery stands (`GET /v1/events`, `GET /v1/events/:id`). */
export interface EventWithDelivery extends CheckoutEvent {
  delivery: {
    status: EventDeliveryStatus;
    attempts: number;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
    /** Only in `GET /v1/events/:id`. */
    history?: EventDeliveryAttempt[];
  };
}

/** Every list of the merchant API: a page, newest first, and whether more follow it. */
export interface ListPage<T> {
  data: T[];
  hasMore: boolean;
}

/** The one error object of `/v1/*`. */
export const API_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'not_found_error',
  'conflict_error',
  'idempotency_error',
  'rate_limit_error',
  'gateway_error',
  'api_error',
] as const;
export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

export interface ApiError {
  error: {
    type: ApiErrorType;
    /** Stable and documented (docs/merchant-api.md): e.g. `parameter_invalid`, `session_not_found`. */
    code: string;
    message: string;
    /** The field at fault, in dotted form (`customer.email`), when there is one. */
    param?: string;
    requestId: string;
  };
}
