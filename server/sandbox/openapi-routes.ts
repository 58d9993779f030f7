import { Hono } from 'hono';
import { apiReferencePage } from '../lib/api-reference';
import { gatewayOpenApi } from '../gateway/openapi';
import { GATEWAY_OPERATIONS, type GatewayApi } from '../gateway/operations';
import type { SandboxContext } from './context';

/**
 * The two APIs described: `GET /openapi.json` (Gateway API), `GET /openapi/integration.json`
 * (Integration API), and `GET /docs`, a page listing every operation with links to both.
 * Generated from the operation table and its zod schemas (server/gateway/openapi.ts), built
 * once per sandbox; no token needed.
 */
export function openApiRoutes(ctx: SandboxContext): Hono {
  const docs = new Map<GatewayApi, Record<string, unknown>>();
  const doc = (api: GatewayApi) => {
    let d = docs.get(api);
    if (!d) {
      d = gatewayOpenApi(api, ctx.publicUrl);
      docs.set(api, d);
    }
    return d;
  };
  const ops = (api: GatewayApi) => GATEWAY_OPERATIONS.filter((o) => o.api === api);
  return new Hono()
    .get('/openapi.json', (c) => c.json(doc('gateway')))
    .get('/openapi/integration.json', (c) => c.json(doc('integration')))
    .get('/docs', (c) =>
      apiReferencePage(c, {
        title: 'Gateway sandbox — API reference',
        intro:
          'Both APIs of the gateway spec as this sandbox serves them; the OpenAPI 3.1 documents are generated from the schemas the code validates with.',
        sections: [
          { title: 'Gateway API', json: '/openapi.json', operations: ops('gateway') },
          {
            title: 'Integration API',
            json: '/openapi/integration.json',
            operations: ops('integration'),
          },
        ],
      }),
    );
}
