import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncodings } from '../../../server/bff/routes/static';
import { startBff, type TestBff } from '../../support/bff';

const SOURCE = `export const form = ${JSON.stringify('card-form '.repeat(200))};\n`;
const HASHED = 'card-form.0a1b2c3d4e.js';

let t: TestBff;
let dist: string;
beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'bff-bundles-'));
  mkdirSync(join(dist, 'widget'));
  mkdirSync(join(dist, 'frame'));
  for (const name of ['card-form.js', HASHED]) {
    writeFileSync(join(dist, 'frame', name), SOURCE);
    writeFileSync(join(dist, 'frame', `${name}.br`), brotliCompressSync(SOURCE));
    writeFileSync(join(dist, 'frame', `${name}.gz`), gzipSync(SOURCE));
  }
  writeFileSync(
    join(dist, 'frame', 'manifest.json'),
    JSON.stringify({ file: 'card-form.js', hashedFile: HASHED, integrity: 'sha384-x' }),
  );
  t = await startBff({ config: { staticDir: dist } });
});
afterAll(async () => {
  await t.close();
  if (dist) rmSync(dist, { recursive: true, force: true });
});

/** A raw GET (no automatic decompression), to see the bytes on the wire. */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  return new Promise((done, fail) => {
    const req = httpRequest(new URL(path, t.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

describe('precompressed, hashed bundles', () => {
  it('sends the brotli sibling when accepted, then gzip, else the plain file', async () => {
    const br = await rawGet(`/frame/${HASHED}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).toString()).toBe(SOURCE);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const gz = await rawGet(`/frame/${HASHED}`, { 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SOURCE);

    const plain = await rawGet(`/frame/${HASHED}`, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SOURCE);
  });

  it('answers a revalidation with 304 by ETag, one ETag per encoding', async () => {
    const first = await rawGet('/frame/card-form.js', { 'accept-encoding': 'br' });
    const tag = first.headers['etag'] as string;
    expect(tag).toMatch(/^"[^"]+"$/);
    const again = await rawGet('/frame/card-form.js', {
      'accept-encoding': 'br',
      'if-none-match': tag,
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const gz = await rawGet('/frame/card-form.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['etag']).not.toBe(tag);
  });

  it('never serves the compressed siblings as files of their own', async () => {
    expect((await rawGet(`/frame/${HASHED}.br`, {})).status).toBe(404);
  });

  it('the frame page names the hashed bundle from the manifest', async () => {
    const s = await t.createSession();
    const res = await t.request('GET', `/checkout/frame?session=${s.id}`);
    expect(res.text).toContain(
      `<script type="module" src="/frame/${HASHED}" integrity="sha384-x"></script>`,
    );
  });

  it('the frame page is sent gzipped to a browser that takes it, and plain otherwise', async () => {
    const s = await t.createSession();
    const url = `${t.url}/checkout/frame?session=${s.id}`;
    const zipped = await fetch(url, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(await zipped.text()).toContain(`/frame/${HASHED}`);
    const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toContain(`/frame/${HASHED}`);
  });
});

describe('acceptedEncodings', () => {
  it.each([
    ['gzip, deflate, br', 'br', true],
    ['gzip, deflate, br;q=0', 'br', false],
    ['br;q=0.5', 'br', true],
    ['BR', 'br', true],
    ['', 'gzip', false],
    ['gzip;q=0.000', 'gzip', false],
    ['x-gzip', 'gzip', false],
  ])('%j accepts %s: %s', (header, coding, expected) => {
    expect(acceptedEncodings(header).has(coding)).toBe(expected);
  });
});
