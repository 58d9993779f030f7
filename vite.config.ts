/**
 * Widget builds (DESIGN §4, "Build output"). Two independent library builds, so neither can
 * share a chunk with the other:
 *  - host  `widget/host/index.ts`  → `dist/widget/card-checkout.js` (one ES module, no chunks,
 *    no dependencies), a content-hashed copy and `manifest.json` with its SRI hash;
 *  - frame `widget/frame/index.ts` → `dist/frame/card-form.js` (Lit bundled in), a
 *    content-hashed copy the frame page names (immutable) and its `manifest.json`;
 *  - frame boot `widget/frame/boot.ts` → a classic script written into the frame's
 *    `manifest.json` (`boot.code`, with `boot.hash`, its CSP source): the BFF inlines it into
 *    the frame page, whose CSP allows it by that hash.
 * Every output also gets brotli (`.br`) and gzip (`.gz`) copies, so the BFF serves compressed
 * bytes without compressing per request (server/bff/routes/static.ts).
 * `vite build` runs the host build from this config; a plugin runs the frame build after it.
 * `buildWidget(outRoot)` runs both into another folder (the budget test uses a temp dir).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig, Plugin, UserConfig } from 'vite';
import { build, defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export const HOST_FILE = 'card-checkout.js';
export const FRAME_FILE = 'card-form.js';

export interface WidgetManifest {
  file: string;
  hashedFile: string;
  integrity: string;
  /** The frame's only: its boot script and the CSP source (`'sha256-…'`) that allows it. */
  boot?: { code: string; hash: string };
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Brotli (quality 11) and gzip (level 9) copies of the text files of `dir` worth compressing,
 * once, at build.
 */
async function precompress(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!/\.(js|json|svg|css)$/.test(name)) continue;
    const data = await readFile(join(dir, name));
    if (data.length < 1024) continue;
    await writeFile(
      join(dir, `${name}.br`),
      await brotli(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    await writeFile(join(dir, `${name}.gz`), await gz(data, { level: 9 }));
  }
}

/**
 * Writes `<name>.<hash>.js` and `manifest.json` from the final file on disk (with its SRI hash),
 * then the compressed copies of the folder.
 */
function manifestPlugin(outDir: string, file: string): Plugin {
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
      await precompress(outDir);
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

/**
 * In the frame build, the brands' table (`widget/card/brand-table.ts`) is the one the frame page
 * carries (`widget/frame/brand-table.ts` reads it): its prefix ranges stay out of the bundle.
 */
function brandTableFromPage(): Plugin {
  const table = resolve(root, 'widget/card/brand-table.ts');
  const fromPage = resolve(root, 'widget/frame/brand-table.ts');
  return {
    name: 'card-checkout:brand-table-from-page',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.endsWith('/brand-table') || !importer) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === table ? fromPage : null;
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
      // `comments`: the bundler marks kept in the output (Lit's `/* @__PURE__ */`) serve tree
      // shaking, which the served files are past; dropped, they save the frame ≈ 35 B gzipped.
      rolldownOptions: {
        output: { codeSplitting: false, minify: true, comments: { annotation: false } },
      },
    },
  };
}

export function hostConfig(outRoot = resolve(root, 'dist')): InlineConfig {
  const outDir = join(outRoot, 'widget');
  const config = libraryConfig('widget/host/index.ts', outDir, HOST_FILE);
  return { ...config, configFile: false, plugins: [manifestPlugin(outDir, HOST_FILE)] };
}

export function frameConfig(outRoot = resolve(root, 'dist')): InlineConfig {
  const outDir = join(outRoot, 'frame');
  return {
    ...libraryConfig('widget/frame/index.ts', outDir, FRAME_FILE),
    configFile: false,
    plugins: [squeezeTemplates(), brandTableFromPage(), manifestPlugin(outDir, FRAME_FILE)],
  };
}

/**
 * The frame boot: built in memory as one classic script (an IIFE) and written into the frame's
 * manifest with its CSP hash. Run after the frame build, which writes that manifest.
 */
export async function buildFrameBoot(outRoot = resolve(root, 'dist')): Promise<void> {
  const config = libraryConfig('widget/frame/boot.ts', join(outRoot, 'frame'), 'boot.js');
  const out = await build({
    ...config,
    configFile: false,
    build: {
      ...config.build,
      write: false,
      emptyOutDir: false,
      lib: { entry: resolve(root, 'widget/frame/boot.ts'), formats: ['iife'], name: 'boot' },
    },
  });
  const chunk = [out]
    .flat()
    .flatMap((o) => ('output' in o ? o.output : []))
    .find((c) => c.type === 'chunk');
  if (!chunk || chunk.type !== 'chunk') throw new Error('frame boot: no output');
  const code = chunk.code;
  // Inlined, `</script` would end the element early.
  if (/<\/script/i.test(code)) throw new Error('frame boot: the code contains </script');
  const path = join(outRoot, 'frame', 'manifest.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as WidgetManifest;
  manifest.boot = { code, hash: `'sha256-${createHash('sha256').update(code).digest('base64')}'` };
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Every build, one after the other. */
export async function buildWidget(outRoot?: string): Promise<void> {
  await build(hostConfig(outRoot));
  await build(frameConfig(outRoot));
  await buildFrameBoot(outRoot);
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
          await buildFrameBoot();
        },
      } satisfies Plugin,
    ],
  };
});
