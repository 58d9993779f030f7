/**
 * Widget builds (DESIGN §4, "Build output"). Two independent library builds, so neither can
 * share a chunk with the other:
 *  - host  `widget/host/index.ts`  → `dist/widget/card-checkout.js` (one ES module, no chunks,
 *    no dependencies), a content-hashed copy and `manifest.json` with its SRI hash;
 *  - frame `widget/frame/index.ts` → `dist/frame/card-form.js` (Lit bundled in), the same.
 * Every script also gets precompressed `.br` and `.gz` siblings.
 * `vite build` runs the host build from this config; a plugin runs the frame build after it.
 * `buildWidget(outRoot)` runs both into another folder (the budget test uses a temp dir).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { InlineConfig, Plugin, UserConfig } from 'vite';
import { build, defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export const HOST_FILE = 'card-checkout.js';
export const FRAME_FILE = 'card-form.js';

export interface WidgetManifest {
  file: string;
  hashedFile: string;
  integrity: string;
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * After the build, in `outDir`: a content-hashed copy of `file` (`card-form.<hash>.js`, served
 * immutable), `manifest.json` naming it with its SRI hash, and brotli (`.br`) and gzip (`.gz`)
 * siblings of every script, compressed once at maximum level so the BFF only picks one by
 * `Accept-Encoding` (compressing per request would cost every shopper CPU time).
 */
function hashedManifestPlugin(outDir: string, file: string): Plugin {
  return {
    name: 'card-checkout:manifest',
    apply: 'build',
    async writeBundle() {
      const code = await readFile(join(outDir, file));
      const hash = createHash('sha256').update(code).digest('hex').slice(0, 10);
      const hashedFile = file.replace(/\.js$/, `.${hash}.js`);
      await writeFile(join(outDir, hashedFile), code);
      const manifest: WidgetManifest = {
        file,
        hashedFile,
        integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
      };
      await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      for (const name of await readdir(outDir)) {
        if (!name.endsWith('.js')) continue;
        const body = await readFile(join(outDir, name));
        await writeFile(
          join(outDir, `${name}.br`),
          await brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        await writeFile(join(outDir, `${name}.gz`), await gz(body, { level: 9 }));
      }
    },
  };
}

/**
 * The minifier leaves template literals alone, so Lit's `html` and `css` templates keep their
 * indentation. Dropping leading whitespace after line breaks in the frame's own sources is
 * safe (HTML and CSS treat it as one space; JS keeps its line breaks) and saves bytes; in
 * `*.styles.ts` the CSS is squeezed around punctuation too.
 */
function squeezeTemplates(): Plugin {
  return {
    name: 'card-checkout:squeeze-templates',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/widget\/frame\/[^/]+\.ts$/.test(id)) return null;
      let out = code.replace(/\n[ \t]+/g, '\n');
      if (id.endsWith('.styles.ts')) out = out.replace(/\s*([{};,])\s*/g, '$1');
      return { code: out, map: null };
    },
  };
}

function libraryConfig(entry: string, outDir: string, fileName: string): UserConfig {
  return {
    root,
    // Always the production build of Lit, even when NODE_ENV says otherwise (vitest sets 'test').
    mode: 'production',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    resolve: { conditions: ['module', 'browser', 'production'] },
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      sourcemap: false,
      copyPublicDir: false,
      reportCompressedSize: false,
      lib: { entry: resolve(root, entry), formats: ['es'], fileName: () => fileName },
      rolldownOptions: { output: { codeSplitting: false, minify: true } },
    },
  };
}

export function hostConfig(outRoot = resolve(root, 'dist')): InlineConfig {
  const outDir = join(outRoot, 'widget');
  const config = libraryConfig('widget/host/index.ts', outDir, HOST_FILE);
  return { ...config, configFile: false, plugins: [hashedManifestPlugin(outDir, HOST_FILE)] };
}

export function frameConfig(outRoot = resolve(root, 'dist')): InlineConfig {
  const outDir = join(outRoot, 'frame');
  return {
    ...libraryConfig('widget/frame/index.ts', outDir, FRAME_FILE),
    configFile: false,
    plugins: [squeezeTemplates(), hashedManifestPlugin(outDir, FRAME_FILE)],
  };
}

/** Both builds, one after the other. */
export async function buildWidget(outRoot?: string): Promise<void> {
  await build(hostConfig(outRoot));
  await build(frameConfig(outRoot));
}

export default defineConfig(() => {
  const host = hostConfig();
  return {
    ...host,
    plugins: [
      ...(host.plugins ?? []),
      {
        name: 'card-checkout:frame-build',
        apply: 'build',
        async closeBundle() {
          await build(frameConfig());
        },
      } satisfies Plugin,
    ],
  };
});
