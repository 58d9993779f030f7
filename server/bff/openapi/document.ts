/**
 * The OpenAPI 3.1 document of the BFF's merchant API (`/v1/*`), generated from the operation
 * table below and the zod schemas the routes validate with (requests) and answer by
 * (./schemas.ts), through the same JSON Schema output as the sandbox's documents. A test checks
 * that every documented operation is a route and every `/v1` route is documented.
 */
import type { z } from 'zod';
import { jsonSchema, pathAndQueryParameters } from '../../gateway/openapi';
import { CreateSessionBodySchema } from '../checkout-api';
import { ListEventsQuerySchema } from '../routes/events';
import { ListSessionsQuerySchema, ListSubscriptionsQuerySchema } from '../routes/merchant';
import { ListNotificationsQuerySchema } from '../webhooks/notifications';
import {
  ApiErrorSchema,
  CanceledSubscriptionSchema,
  CreatedSessionSchema,
  EventSchema,
  SessionDetailSchema,
  SessionSummarySchema,
  SubscriptionSchema,
  WebhookNotificationSchema,
} from './schemas';

type Json = Record<string, unknown>;

/** The named schemas of `components.schemas` (answers refer to them by `$ref`). */
export const MERCHANT_SCHEMAS = {
  Error: ApiErrorSchema,
  CreatedSession: CreatedSessionSchema,
  CheckoutSessionSummary: SessionSummarySchema,
  CheckoutSession: SessionDetailSchema,
  Event: EventSchema,
  Subscription: SubscriptionSchema,
  CanceledSubscription: CanceledSubscriptionSchema,
  WebhookNotification: WebhookNotificationSchema,
} as const;
type SchemaName = keyof typeof MERCHANT_SCHEMAS;

export interface MerchantOperation {
  operationId: string;
  method: 'GET' | 'POST';
  /** OpenAPI path template under the server URL (`/v1/…`). */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success status and what it answers: a named schema, or a page of one. */
  ok: { status: 200 | 201 | 202; schema: SchemaName; page?: true };
  /** Takes `Idempotency-Key`. */
  idempotent?: true;
  /** Error statuses it may answer besides 400, 401, 429 and 500. */
  errors?: (404 | 409 | 422 | 503)[];
}

const op = (o: MerchantOperation) => o;

export const MERCHANT_OPERATIONS: readonly MerchantOperation[] = [
  op({
    operationId: 'createCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-sessions',
    summary: 'Create a checkout session (amount or planId); answers its client secret once',
    tag: 'Checkout sessions',
    body: CreateSessionBodySchema,
    ok: { status: 201, schema: 'CreatedSession' },
    idempotent: true,
    errors: [409, 422, 503],
  }),
  op({
    operationId: 'listCheckoutSessions',
    method: 'GET',
    path: '/v1/checkout-sessions',
    summary: 'List checkout sessions, newest first',
    tag: 'Checkout sessions',
    query: ListSessionsQuerySchema,
    ok: { status: 200, schema: 'CheckoutSessionSummary', page: true },
  }),
  op({
    operationId: 'getCheckoutSession',
    method: 'GET',
    path: '/v1/checkout-sessions/{id}',
    summary: 'A checkout session with its attempts and payment',
    tag: 'Checkout sessions',
    ok: { status: 200, schema: 'CheckoutSession' },
    errors: [404],
  }),
  op({
    operationId: 'expireCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-sessions/{id}/expire',
    summary: 'End an open checkout session now',
    tag: 'Checkout sessions',
    ok: { status: 200, schema: 'CheckoutSession' },
    idempotent: true,
    errors: [404, 409, 422],
  }),
  op({
    operationId: 'listSubscriptions',
    method: 'GET',
    path: '/v1/subscriptions',
    summary: 'Subscriptions made by checkout sessions, with their billings, newest first',
    tag: 'Subscriptions',
    query: ListSubscriptionsQuerySchema,
    ok: { status: 200, schema: 'Subscription', page: true },
    errors: [503],
  }),
  op({
    operationId: 'cancelSubscription',
    method: 'POST',
    path: '/v1/subscriptions/{id}/cancel',
    summary: 'Cancel a subscription at the gateway',
    tag: 'Subscriptions',
    ok: { status: 200, schema: 'CanceledSubscription' },
    idempotent: true,
    errors: [404, 409, 422, 503],
  }),
  op({
    operationId: 'listEvents',
    method: 'GET',
    path: '/v1/events',
    summary: 'Events, newest first, with where their delivery stands',
    tag: 'Events',
    query: ListEventsQuerySchema,
    ok: { status: 200, schema: 'Event', page: true },
  }),
  op({
    operationId: 'getEvent',
    method: 'GET',
    path: '/v1/events/{id}',
    summary: 'An event with every delivery attempt',
    tag: 'Events',
    ok: { status: 200, schema: 'Event' },
    errors: [404],
  }),
  op({
    operationId: 'redeliverEvent',
    method: 'POST',
    path: '/v1/events/{id}/redeliver',
    summary: 'Deliver an event again now (a new three-day series)',
    tag: 'Events',
    ok: { status: 202, schema: 'Event' },
    idempotent: true,
    errors: [404, 409, 422],
  }),
  op({
    operationId: 'listWebhookNotifications',
    method: 'GET',
    path: '/v1/webhook-notifications',
    summary: "The gateway's notifications as the BFF received them, newest first",
    tag: 'Gateway notifications',
    query: ListNotificationsQuerySchema,
    ok: { status: 200, schema: 'WebhookNotification', page: true },
  }),
];

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request_error: a field breaks a rule (`param` names it)',
  401: 'authentication_error: no merchant secret, or a wrong one',
  404: 'not_found_error: no such resource',
  409: 'conflict_error, or idempotency_error while the first request with the key runs',
  413: 'invalid_request_error (`body_too_large`): the body is over 32 KiB',
  415: 'invalid_request_error (`unsupported_media_type`): the body is not JSON',
  422: 'idempotency_error: the key was used with another body',
  429: 'rate_limit_error: too many requests (`Retry-After`)',
  500: 'api_error: a fault of ours',
  503: 'gateway_error: the gateway could not be reached; try again',
};

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

function parameters(o: MerchantOperation): Json[] {
  // What a query parameter means once parsed (a number for `limit`), not its text on the wire.
  const out = pathAndQueryParameters(o.path, o.query, 'output', 64);
  if (o.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Replays the first answer for a day (8–100 of A-Z a-z 0-9 _ . : -)',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{8,100}$' },
    });
  }
  return out;
}

function operation(o: MerchantOperation): Json {
  const params = parameters(o);
  const body = o.ok.page
    ? {
        type: 'object',
        properties: {
          data: { type: 'array', items: ref(o.ok.schema) },
          hasMore: { type: 'boolean' },
        },
        required: ['data', 'hasMore'],
        additionalProperties: false,
      }
    : ref(o.ok.schema);
  const responses: Json = {
    [String(o.ok.status)]: { description: 'OK', content: { 'application/json': { schema: body } } },
  };
  const bodyErrors = o.body ? [413, 415] : [];
  for (const status of [400, 401, ...(o.errors ?? []), ...bodyErrors, 429, 500]) {
    responses[String(status)] = {
      description: ERROR_TEXT[status],
      ...(status === 429
        ? {
            headers: {
              'Retry-After': {
                description: 'seconds until the limit lets a request through again',
                schema: { type: 'integer', minimum: 1 },
              },
            },
          }
        : {}),
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  return {
    operationId: o.operationId,
    summary: o.summary,
    tags: [o.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(o.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(o.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** The merchant API's OpenAPI 3.1 document; `serverUrl` is the BFF's public URL. */
export function merchantOpenApi(serverUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const o of MERCHANT_OPERATIONS) {
    paths[o.path] = { ...paths[o.path], [o.method.toLowerCase()]: operation(o) };
  }
  const schemas: Json = {};
  for (const [name, schema] of Object.entries(MERCHANT_SCHEMAS)) {
    schemas[name] = jsonSchema(schema, 'output');
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'card-checkout merchant API',
      version: '1.0.0',
      description:
        'Server to server, with `Authorization: Bearer <merchant secret>`: checkout sessions, ' +
        'the subscriptions they made, events and the gateway notifications the BFF received. ' +
        'Every error is one object, `{"error": {type, code, message, param, requestId}}`; ' +
        'every list a page, `{data, hasMore}`, newest first (`limit`, `starting_after`, ' +
        '`ending_before`).',
    },
    servers: [{ url: serverUrl }],
    security: [{ merchantSecret: [] }],
    paths,
    components: {
      securitySchemes: { merchantSecret: { type: 'http', scheme: 'bearer' } },
      schemas,
    },
  };
}
