/**
 * The build folders served by the BFF (`/widget/*`, `/frame/*`): the build's brotli or gzip
 * copy by `Accept-Encoding`, strong ETags per representation with 304s, immutable caching for
 * hashed names only. Real files in a temp folder, through `app.request()`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptedEncodings, staticRoutes } from '../../../server/bff/routes/static';
import type { BffEnv } from '../../../server/bff/context';

const dir = mkdtempSync(join(tmpdir(), 'bff-static-'));
const code = Buffer.from(`export const x = ${JSON.stringify('card-form '.repeat(500))};\n`);
for (const name of ['card-form.js', 'card-form.0123abcdef.js']) {
  writeFileSync(join(dir, name), code);
  writeFileSync(join(dir, `${name}.br`), brotliCompressSync(code));
  writeFileSync(join(dir, `${name}.gz`), gzipSync(code));
}
writeFileSync(join(dir, 'manifest.json'), '{"file":"card-form.js"}');
const app = new Hono<BffEnv>().route('/frame', staticRoutes(dir));
const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('acceptedEncodings', () => {
  it.each([
    ['gzip, deflate, br, zstd', ['gzip', 'deflate', 'br', 'zstd']],
    ['br;q=0, gzip;q=0.5', ['gzip']],
    ['*', ['br', 'gzip']],
    ['*, br;q=0', ['gzip']],
    ['identity', ['identity']],
    [undefined, []],
  ])('%s', (header, expected) => {
    expect([...acceptedEncodings(header)].sort()).toEqual([...expected].sort());
  });
});

describe('static build files', () => {
  it('brotli when accepted, else gzip, else the plain bytes; Vary says so', async () => {
    const br = await get('/frame/card-form.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).equals(code)).toBe(true);

    const gz = await get('/frame/card-form.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(code)).toBe(true);

    const plain = await get('/frame/card-form.js', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(code)).toBe(true);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('a strong ETag per representation; If-None-Match answers 304 without a body', async () => {
    const br = await get('/frame/card-form.js', { 'accept-encoding': 'br' });
    const gz = await get('/frame/card-form.js', { 'accept-encoding': 'gzip' });
    const tag = br.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(gz.headers.get('etag')).not.toBe(tag);
    const again = await get('/frame/card-form.js', {
      'accept-encoding': 'br',
      'if-none-match': tag,
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    // Another representation's tag does not match.
    const other = await get('/frame/card-form.js', {
      'accept-encoding': 'gzip',
      'if-none-match': tag,
    });
    expect(other.status).toBe(200);
  });

  it('hashed names are immutable for a year, stable names revalidate', async () => {
    const hashed = await get('/frame/card-form.0123abcdef.js');
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const stable = await get('/frame/card-form.js');
    expect(stable.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
  });

  it('a file without compressed copies is served plain, without Vary', async () => {
    const res = await get('/frame/manifest.json', { 'accept-encoding': 'br, gzip' });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
    expect(await res.json()).toEqual({ file: 'card-form.js' });
  });

  it('a changed file on disk is served anew (the cache follows the mtime)', async () => {
    const path = join(dir, 'late.js');
    writeFileSync(path, 'one');
    expect(await (await get('/frame/late.js')).text()).toBe('one');
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(path, 'two!');
    expect(await (await get('/frame/late.js')).text()).toBe('two!');
  });

  it('unknown files, traversal and malformed paths are 4xx', async () => {
    expect((await get('/frame/nope.js')).status).toBe(404);
    expect((await get('/frame/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get('/frame/%ZZ')).status).toBe(400);
  });
});
