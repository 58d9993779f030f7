import { Hono } from 'hono';
import { apiReferencePage } from '../../lib/api-reference';
import type { BffContext, BffEnv } from '../context';
import { MERCHANT_OPERATIONS, merchantOpenApi } from '../openapi/document';

/**
 * `GET /openapi.json`: the merchant API's OpenAPI 3.1 document (built once); `GET /docs`: the
 * reference page. Public: they describe the API, they open nothing.
 */
export function openApiRoutes(ctx: BffContext): Hono<BffEnv> {
  let doc: Record<string, unknown> | null = null;
  return new Hono<BffEnv>()
    .get('/openapi.json', (c) => c.json((doc ??= merchantOpenApi(ctx.config.publicUrl))))
    .get('/docs', (c) =>
      apiReferencePage(c, {
        title: 'card-checkout — merchant API reference',
        intro:
          'The BFF’s API for the merchant’s server (Authorization: Bearer <merchant secret>). The OpenAPI 3.1 document is generated from the schemas the routes validate with.',
        sections: [
          { title: 'Merchant API', json: '/openapi.json', operations: MERCHANT_OPERATIONS },
        ],
      }),
    );
}
