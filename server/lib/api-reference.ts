import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';

export interface ApiReferenceSection {
  title: string;
  /** Where the section's OpenAPI document is served. */
  json: string;
  operations: readonly { method: string; path: string; operationId: string; summary: string }[];
}

const STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}code{font-size:13px}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * `GET /docs` of an app: a readable list of every operation, linking to its OpenAPI documents
 * (the sandbox's two APIs, the BFF's merchant API). No script; its one style is allowed by hash.
 */
export function apiReferencePage(
  c: Context,
  page: { title: string; intro: string; sections: readonly ApiReferenceSection[] },
): Response | Promise<Response> {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  return c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>${page.title}</title>
          <style>
            ${raw(STYLE)}
          </style>
        </head>
        <body>
          <h1>${page.title}</h1>
          <p>${page.intro}</p>
          ${page.sections.map(
            (s) =>
              html`<section>
                <h2>${s.title} <a href="${s.json}">${s.json}</a></h2>
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
                    ${s.operations.map(
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
              </section>`,
          )}
        </body>
      </html>`,
  );
}
