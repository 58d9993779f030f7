import { Hono } from 'hono';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressPage } from '../../../../server/bff/http/compress-page';

const PAGE = `<!doctype html><p>${'card form '.repeat(300)}</p>`;

const app = new Hono()
  .get('/page', compressPage(), (c) => c.html(PAGE))
  .get('/small', compressPage(), (c) => c.html('<p>hi</p>'))
  .get('/json', compressPage(), (c) => c.json({ page: PAGE }))
  .get('/vary', compressPage(), (c) => {
    c.header('Vary', 'Accept');
    return c.html(PAGE);
  });

const get = (path: string, acceptEncoding: string) =>
  app.request(path, { headers: { 'accept-encoding': acceptEncoding } });

describe('compressPage', () => {
  it('gzips a page whole for a browser that takes gzip, with its length', async () => {
    const res = await get('/page', 'gzip, deflate, br');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(body.length).toBeLessThan(PAGE.length / 4);
    expect(gunzipSync(body).toString()).toBe(PAGE);
  });

  it.each(['identity', 'gzip;q=0', ''])('sends the page plain for %j', async (accept) => {
    const res = await get('/page', accept);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(await res.text()).toBe(PAGE);
  });

  it('leaves a small page and other content types as they are', async () => {
    const small = await get('/small', 'gzip');
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.text()).toBe('<p>hi</p>');
    const json = await get('/json', 'gzip');
    expect(json.headers.get('content-encoding')).toBeNull();
    expect(await json.json()).toEqual({ page: PAGE });
  });

  it('adds Accept-Encoding to a Vary the route set', async () => {
    const res = await get('/vary', 'gzip');
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(gunzipSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(PAGE);
  });
});
