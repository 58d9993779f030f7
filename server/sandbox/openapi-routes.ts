import { Hono } from 'hono';
import { html, raw } from 'hono/html';
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
  const section = (api: GatewayApi, title: string, json: string) =>
    html`<section>
      <h2>${title} <a href="${json}">${json}</a></h2>
      <table>
        <thead>
          <tr>
            <th>method</th>
            <th>path</th>
            <th>operation</th>
            <th>what</th>
          </tr>
        </thead>
        <tbody>
          ${GATEWAY_OPERATIONS.filter((o) => o.api === api).map(
            (o) =>
              html`<tr>
                <td>${o.method}</td>
                <td><code>${o.path}</code></td>
                <td>${o.operationId}</td>
                <td>${o.summary}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
  return new Hono()
    .get('/openapi.json', (c) => c.json(doc('gateway')))
    .get('/openapi/integration.json', (c) => c.json(doc('integration')))
    .get('/docs', (c) =>
      c.html(
        html`<!doctype html>
          <html lang="en">
            <head>
              <meta charset="utf-8" />
              <title>Gateway sandbox — API reference</title>
              <style>
                ${raw(
                  'body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}code{font-size:13px}',
                )}
              </style>
            </head>
            <body>
              <h1>Gateway sandbox — API reference</h1>
              <p>
                Both APIs of the gateway spec as this sandbox serves them; the OpenAPI 3.1 documents
                are generated from the schemas the code validates with.
              </p>
              ${section('gateway', 'Gateway API', '/openapi.json')}
              ${section('integration', 'Integration API', '/openapi/integration.json')}
            </body>
          </html>`,
      ),
    );
}
