/**
 * The widget bundles' size budgets and the SRI manifest, checked on a real build into a
 * temp folder (so `dist/` in use by a running BFF is left alone). Gzip at level 9, as a CDN
 * would serve it.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WidgetManifest } from '../../../vite.config';
import { buildWidget } from '../../../vite.config';

const HOST_BUDGET = 8 * 1024;
const FRAME_BUDGET = 16 * 1024;

let out: string;
const gz = (b: Buffer): number => gzipSync(b, { level: 9 }).length;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'widget-build-'));
  await buildWidget(out);
}, 120_000);

afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

describe('widget build', () => {
  it('emits each bundle as one module, a hashed copy and a manifest', async () => {
    for (const [dir, name] of [
      ['widget', 'card-checkout'],
      ['frame', 'card-form'],
    ] as const) {
      const files = (await readdir(join(out, dir))).sort();
      const scripts = files.filter((f) => f.endsWith('.js'));
      expect(scripts).toHaveLength(2);
      expect(scripts).toContain(`${name}.js`);
      expect(scripts.some((f) => new RegExp(`^${name}\\.[0-9a-f]{10}\\.js$`).test(f))).toBe(true);
      expect(files).toContain('manifest.json');
    }
  });

  it('precompresses every script: brotli and gzip siblings that decode to it', async () => {
    for (const dir of ['widget', 'frame']) {
      const files = await readdir(join(out, dir));
      for (const script of files.filter((f) => f.endsWith('.js'))) {
        const code = await readFile(join(out, dir, script));
        const br = await readFile(join(out, dir, `${script}.br`));
        const gzipped = await readFile(join(out, dir, `${script}.gz`));
        expect(brotliDecompressSync(br).equals(code)).toBe(true);
        expect(gunzipSync(gzipped).equals(code)).toBe(true);
        expect(br.length).toBeLessThan(code.length);
      }
    }
  });

  it('the frame manifest names its hashed copy, identical to the stable file', async () => {
    const manifest = JSON.parse(
      await readFile(join(out, 'frame', 'manifest.json'), 'utf8'),
    ) as WidgetManifest;
    const frame = await readFile(join(out, 'frame', 'card-form.js'));
    expect((await readFile(join(out, 'frame', manifest.hashedFile))).equals(frame)).toBe(true);
  });

  it('the manifest integrity is the sha384 of the host file, and the hashed copy is identical', async () => {
    const manifest = JSON.parse(
      await readFile(join(out, 'widget', 'manifest.json'), 'utf8'),
    ) as WidgetManifest;
    const host = await readFile(join(out, 'widget', manifest.file));
    const hashed = await readFile(join(out, 'widget', manifest.hashedFile));
    expect(manifest.file).toBe('card-checkout.js');
    expect(hashed.equals(host)).toBe(true);
    expect(manifest.integrity).toBe(`sha384-${createHash('sha384').update(host).digest('base64')}`);
  });

  it('the host is self-contained: no imports, no Lit, no zod', async () => {
    const host = await readFile(join(out, 'widget', 'card-checkout.js'), 'utf8');
    expect(host).not.toMatch(/\bimport\s*[{("'`]|\bimport\(/);
    expect(host).not.toContain('_$litType$');
    expect(host).not.toMatch(/ZodError|zod/);
    expect(host).toContain('card-checkout');
  });

  it('the frame bundles Lit and no zod', async () => {
    const frame = await readFile(join(out, 'frame', 'card-form.js'), 'utf8');
    expect(frame).toContain('card-form');
    expect(frame).not.toMatch(/\bimport\s*[{("'`]|\bimport\(/);
    expect(frame).not.toMatch(/ZodError/);
  });

  it(`host ≤ ${HOST_BUDGET} bytes and frame ≤ ${FRAME_BUDGET} bytes gzipped`, async () => {
    const host = gz(await readFile(join(out, 'widget', 'card-checkout.js')));
    const frame = gz(await readFile(join(out, 'frame', 'card-form.js')));
    console.warn(`widget sizes (gzip -9): host ${host} B, frame ${frame} B`);
    expect(host).toBeLessThanOrEqual(HOST_BUDGET);
    expect(frame).toBeLessThanOrEqual(FRAME_BUDGET);
  });
});
