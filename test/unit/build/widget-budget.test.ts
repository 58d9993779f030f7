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
      const files = (await readdir(join(out, dir))).filter((f) => /\.(js|json)$/.test(f));
      expect(files).toHaveLength(3);
      expect(files).toContain(`${name}.js`);
      expect(files).toContain('manifest.json');
      expect(files.some((f) => new RegExp(`^${name}\\.[0-9a-f]{10}\\.js$`).test(f))).toBe(true);
    }
  });

  it('every script has brotli and gzip copies of the same bytes, smaller', async () => {
    for (const dir of ['widget', 'frame']) {
      for (const f of (await readdir(join(out, dir))).filter((n) => n.endsWith('.js'))) {
        const raw = await readFile(join(out, dir, f));
        const br = await readFile(join(out, dir, `${f}.br`));
        const gzipped = await readFile(join(out, dir, `${f}.gz`));
        expect(brotliDecompressSync(br).equals(raw)).toBe(true);
        expect(gunzipSync(gzipped).equals(raw)).toBe(true);
        expect(br.length).toBeLessThan(gzipped.length);
        expect(gzipped.length).toBeLessThan(raw.length / 2);
      }
    }
  });

  it('each manifest integrity is the sha384 of its file, and the hashed copy is identical', async () => {
    for (const [dir, name] of [
      ['widget', 'card-checkout.js'],
      ['frame', 'card-form.js'],
    ] as const) {
      const manifest = JSON.parse(
        await readFile(join(out, dir, 'manifest.json'), 'utf8'),
      ) as WidgetManifest;
      const file = await readFile(join(out, dir, manifest.file));
      const hashed = await readFile(join(out, dir, manifest.hashedFile));
      expect(manifest.file).toBe(name);
      expect(hashed.equals(file)).toBe(true);
      expect(manifest.integrity).toBe(
        `sha384-${createHash('sha384').update(file).digest('base64')}`,
      );
    }
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

  it("the frame keeps no bundler annotations (Lit's pure marks): its bytes are code", async () => {
    const frame = await readFile(join(out, 'frame', 'card-form.js'), 'utf8');
    expect(frame).not.toMatch(/@__PURE__|#__PURE__/);
  });

  it("the frame reads the brands' table from its page: no prefix ranges in the bundle", async () => {
    const frame = await readFile(join(out, 'frame', 'card-form.js'), 'utf8');
    expect(frame).not.toMatch(/650031|American Express/);
    expect(frame).toContain('.brands');
  });

  const bootOf = async () =>
    (JSON.parse(await readFile(join(out, 'frame', 'manifest.json'), 'utf8')) as WidgetManifest)
      .boot!;

  it('the frame manifest carries the boot: one classic script and the CSP hash of its text', async () => {
    const boot = await bootOf();
    expect(boot.code).toMatch(/^\(function\(\)\{/);
    expect(boot.code).not.toMatch(/\bimport\s*[{("'`]|\bimport\(|\bexport\b|<\/script/i);
    expect(boot.code).not.toContain('_$litType$');
    expect(boot.code).toContain('cardFormBoot');
    expect(boot.hash).toBe(`'sha256-${createHash('sha256').update(boot.code).digest('base64')}'`);
  });

  it(`host ≤ ${HOST_BUDGET} bytes and frame (bundle and boot) ≤ ${FRAME_BUDGET} bytes gzipped`, async () => {
    const host = gz(await readFile(join(out, 'widget', 'card-checkout.js')));
    const bundle = gz(await readFile(join(out, 'frame', 'card-form.js')));
    // The boot travels inlined in the frame page, but it is the frame's code all the same.
    const boot = gz(Buffer.from((await bootOf()).code));
    console.warn(`widget sizes (gzip -9): host ${host} B, frame ${bundle} B + boot ${boot} B`);
    expect(host).toBeLessThanOrEqual(HOST_BUDGET);
    expect(bundle + boot).toBeLessThanOrEqual(FRAME_BUDGET);
  });
});
