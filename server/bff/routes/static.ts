import { Hono } from 'hono';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { errorResponse } from '../../lib/http';
import type { BffEnv } from '../context';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.html': 'text/html; charset=utf-8',
};

/**
 * A content-hashed file name (`card-checkout.3f9a1c2b.js`, Vite's `chunk-Bx3k9aQ1.js`): safe
 * to cache forever. A hash has a digit or a capital, which tells it from a word (`-checkout`).
 */
export function isHashedName(name: string): boolean {
  const m = /[.-]([A-Za-z0-9_]{8,64})\.[a-z0-9]+$/.exec(name);
  return m !== null && /[A-Z0-9]/.test(m[1]!);
}

/**
 * Serves the files of one build folder (`dist/widget`, `dist/frame`). Hashed files are
 * immutable for a year; stable names revalidate after 5 minutes. Scripts load cross-origin
 * (the merchant page, with SRI and `crossorigin`), so CORS is open and CORP cross-origin.
 */
export function staticRoutes(root: string): Hono<BffEnv> {
  const base = resolve(root);
  return new Hono<BffEnv>().get('/*', async (c) => {
    let rel: string;
    try {
      rel = decodeURIComponent(c.req.path.replace(/^\/[^/]+\//, ''));
    } catch {
      return errorResponse(c, 400, 'path', 'path: malformed percent-encoding');
    }
    const file = resolve(base, rel);
    if (!file.startsWith(base + sep) || rel.includes('\0')) {
      return errorResponse(c, 404, 'path', 'path: not found');
    }
    const type = TYPES[extname(file)];
    let body: Buffer;
    try {
      if (!type || !(await stat(file)).isFile()) throw new Error('not a file');
      body = await readFile(file);
    } catch {
      return errorResponse(c, 404, 'path', 'path: not found');
    }
    const name = file.slice(file.lastIndexOf(sep) + 1);
    c.header('Content-Type', type);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header(
      'Cache-Control',
      isHashedName(name)
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=300, must-revalidate',
    );
    return c.body(new Uint8Array(body));
  });
}
