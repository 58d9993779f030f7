/**
 * The OpenAPI 3.1 documents of the gateway's two APIs, generated from `GATEWAY_OPERATIONS`
 * and the zod schemas it names (zod's own JSON Schema output, draft 2020-12, which is what
 * OpenAPI 3.1 uses), so the documents say what the code validates.
 */
import { z } from 'zod';
import { GATEWAY_OPERATIONS, type GatewayApi, type GatewayOperation } from './operations';
import { ErrorBodySchema } from './schemas';

type Json = Record<string, unknown>;

const TITLES: Record<GatewayApi, { title: string; description: string }> = {
  gateway: {
    title: 'Gateway API',
    description:
      'Payments (credit, debit with 3-D Secure), cards, refunds and recurrence, as the ' +
      'card-checkout sandbox implements the spec. A Bearer token from `POST /api/auth/token`.',
  },
  integration: {
    title: 'Integration API',
    description:
      'Reconciliation, bank slips and webhook registration, as the card-checkout sandbox ' +
      'implements the spec. A Bearer token from `POST /api/authentication/login`.',
  },
};

/** A zod schema as JSON Schema for a request (`input`) or an answer (`output`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  const { $schema: _ignored, ...rest } = out as Json;
  return rest;
}

/**
 * The path parameters of an OpenAPI path template (strings of at most `idLength`) and the
 * query parameters of a zod object schema, seen as `io` (a query's text, or what it parses to).
 */
export function pathAndQueryParameters(
  path: string,
  query: z.ZodType | undefined,
  io: 'input' | 'output',
  idLength: number,
): Json[] {
  const out: Json[] = [];
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string', maxLength: idLength } });
  }
  if (query) {
    const q = jsonSchema(query, io) as { properties?: Json; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      out.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
    }
  }
  return out;
}

function parameters(o: GatewayOperation): Json[] {
  return pathAndQueryParameters(o.path, o.query, 'input', 36);
}

function operation(o: GatewayOperation): Json {
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  });
  const params = parameters(o);
  return {
    operationId: o.operationId,
    summary: o.summary,
    tags: [o.tag],
    ...(o.auth === false ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(o.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(o.body, 'input') } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'OK',
        content: { 'application/json': { schema: jsonSchema(o.response, 'output') } },
      },
      '400': error('A field breaks a rule of the spec: `errors` names it'),
      ...(o.auth === false
        ? {}
        : {
            '401': error('No token, or one that expired'),
            '404': error('No such resource (or no webhook registered for the account)'),
          }),
    },
  };
}

/** The OpenAPI 3.1 document of one API; `serverUrl` is where it is served. */
export function gatewayOpenApi(api: GatewayApi, serverUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const o of GATEWAY_OPERATIONS) {
    if (o.api !== api) continue;
    paths[o.path] = { ...paths[o.path], [o.method.toLowerCase()]: operation(o) };
  }
  return {
    openapi: '3.1.0',
    info: { ...TITLES[api], version: '1.0.0' },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ErrorBody: jsonSchema(ErrorBodySchema, 'output') },
    },
  };
}
