import { Hono } from 'hono';
import { etag } from 'hono/etag';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
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

/** The build's precompressed siblings (vite.config.ts), best first. */
const ENCODINGS = [
  { coding: 'br', ext: '.br' },
  { coding: 'gzip', ext: '.gz' },
] as const;

/** True when `Accept-Encoding` lists `coding` without `q=0`. */
export function acceptsEncoding(header: string | undefined, coding: string): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    return name === coding && !params.some((p) => /^q=0(\.0{0,3})?$/.test(p));
  });
}

/**
 * The content-hashed name of a build's entry (`card-form.3f9a1c2b7d.js`) from its
 * `manifest.json`, or `fallback` when there is no manifest (a build from before hashing).
 */
export function hashedBundle(dir: string, fallback: string): string {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      hashedFile?: unknown;
    };
    return typeof manifest.hashedFile === 'string' && isHashedName(manifest.hashedFile)
      ? manifest.hashedFile
      : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Serves the files of one build folder (`dist/widget`, `dist/frame`). Hashed files are
 * immutable for a year; stable names revalidate after 5 minutes. Scripts load cross-origin
 * (the merchant page, with SRI and `crossorigin`), so CORS is open and CORP cross-origin.
 * The build's brotli or gzip sibling is sent when `Accept-Encoding` allows it (compressed once
 * at build time, at maximum level). Hono's `etag` middleware answers revalidations with 304;
 * its `serveStatic` has no immutable caching by name and another 404 shape, hence this route.
 */
export function staticRoutes(root: string): Hono<BffEnv> {
  const base = resolve(root);
  return new Hono<BffEnv>().use(etag()).get('/*', async (c) => {
    const rel = decodeURIComponent(c.req.path.replace(/^\/[^/]+\//, ''));
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
    const accepted = c.req.header('accept-encoding');
    for (const { coding, ext } of ENCODINGS) {
      if (!acceptsEncoding(accepted, coding)) continue;
      const encoded = await readFile(file + ext).catch(() => null);
      if (!encoded) continue;
      body = encoded;
      c.header('Content-Encoding', coding);
      break;
    }
    const name = file.slice(file.lastIndexOf(sep) + 1);
    c.header('Vary', 'Accept-Encoding');
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
