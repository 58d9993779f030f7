import { Hono } from 'hono';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
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

/** Compressed copies the build writes beside a file (vite.config.ts), best first. */
const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;
type Encoding = (typeof ENCODINGS)[number][0];

/**
 * A content-hashed file name (`card-checkout.3f9a1c2b.js`, Vite's `chunk-Bx3k9aQ1.js`): safe
 * to cache forever. A hash has a digit or a capital, which tells it from a word (`-checkout`).
 */
export function isHashedName(name: string): boolean {
  const m = /[.-]([A-Za-z0-9_]{8,64})\.[a-z0-9]+$/.exec(name);
  return m !== null && /[A-Z0-9]/.test(m[1]!);
}

/**
 * The encodings an `Accept-Encoding` header accepts, by RFC 9110: `q=0` refuses one; `*`
 * stands for any not named.
 */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const out = new Set<string>();
  const refused = new Set<string>();
  let star = false;
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    const zero = q !== undefined && Number(q) === 0;
    if (name === '*') star = !zero;
    else (zero ? refused : out).add(name);
  }
  if (star) for (const [enc] of ENCODINGS) if (!refused.has(enc)) out.add(enc);
  return out;
}

interface Variant {
  body: Uint8Array;
  etag: string;
}

interface CachedFile {
  mtimeMs: number;
  type: string;
  identity: Variant;
  encoded: Partial<Record<Encoding, Variant>>;
}

async function variantOf(path: string): Promise<Variant | undefined> {
  try {
    const body = new Uint8Array(await readFile(path));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return { body, etag };
  } catch {
    return undefined;
  }
}

/** `If-None-Match` names this representation (or `*`). */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** The file a merchant page loads first (`<script src=".../widget/card-checkout.js">`). */
export const WIDGET_ENTRY = 'widget/card-checkout.js';

/**
 * Why `BFF_STATIC_DIR` cannot serve the widget (the folder is missing, or the build left no
 * entry file in it), or null when it can. Checked at start: a BFF serving 404 for its widget
 * must not say it is ready.
 */
export function staticDirProblem(root: string): string | null {
  const base = resolve(root);
  const fix = 'run `npm run build`, or point BFF_STATIC_DIR at the built dist folder';
  if (!existsSync(base) || !statSync(base).isDirectory()) {
    return `BFF_STATIC_DIR: ${base} is not a folder (${fix})`;
  }
  if (!existsSync(resolve(base, WIDGET_ENTRY))) {
    return `BFF_STATIC_DIR: ${base} has no ${WIDGET_ENTRY} (${fix})`;
  }
  return null;
}

/**
 * Serves the files of one build folder (`dist/widget`, `dist/frame`) from memory: read once
 * (again when the file changes on disk), with the build's brotli or gzip copy when the browser
 * accepts it (`Vary: Accept-Encoding`), a strong ETag per representation and `304` on a match.
 * Hashed files are immutable for a year; stable names revalidate after 5 minutes. Scripts load
 * cross-origin (the merchant page, with SRI and `crossorigin`), so CORS is open and CORP
 * cross-origin.
 */
export function staticRoutes(root: string): Hono<BffEnv> {
  const base = resolve(root);
  const cache = new Map<string, CachedFile>();

  async function load(file: string, type: string): Promise<CachedFile | undefined> {
    let mtimeMs: number;
    try {
      const s = await stat(file);
      if (!s.isFile()) return undefined;
      mtimeMs = s.mtimeMs;
    } catch {
      return undefined;
    }
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit;
    const identity = await variantOf(file);
    if (!identity) return undefined;
    const encoded: CachedFile['encoded'] = {};
    for (const [enc, ext] of ENCODINGS) {
      const v = await variantOf(file + ext);
      if (v) encoded[enc] = v;
    }
    const entry: CachedFile = { mtimeMs, type, identity, encoded };
    cache.set(file, entry);
    return entry;
  }

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
    const entry = type ? await load(file, type) : undefined;
    if (!entry) return errorResponse(c, 404, 'path', 'path: not found');

    const accepted = acceptedEncodings(c.req.header('accept-encoding'));
    const encoding = ENCODINGS.find(([enc]) => accepted.has(enc) && entry.encoded[enc])?.[0];
    const variant = encoding ? entry.encoded[encoding]! : entry.identity;
    const name = file.slice(file.lastIndexOf(sep) + 1);
    c.header('Content-Type', entry.type);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('ETag', variant.etag);
    if (Object.keys(entry.encoded).length) c.header('Vary', 'Accept-Encoding');
    c.header(
      'Cache-Control',
      isHashedName(name)
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=300, must-revalidate',
    );
    if (notModified(c.req.header('if-none-match'), variant.etag)) return c.body(null, 304);
    if (encoding) c.header('Content-Encoding', encoding);
    return c.body(variant.body as Uint8Array<ArrayBuffer>);
  });
}
