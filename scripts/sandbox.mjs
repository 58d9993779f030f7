// `npm run sandbox`: the gateway sandbox alone (server/sandbox/main.ts).
//
// Runs a bundle of the sandbox's TypeScript (dist/server/sandbox.mjs, packages left external)
// built by esbuild when it is missing or older than any file under server/ or package.json:
// loading one file is about a second faster than loading ~100 modules through tsx's loader
// hooks, which is what keeps start-up under two seconds. The build takes a fraction of that.
import { build } from 'esbuild';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'server/sandbox/main.ts');
const OUT = join(ROOT, 'dist/server/sandbox.mjs');

/** Newest modification time of the files the bundle is made from. */
function newestSource(dir = join(ROOT, 'server')) {
  let newest = statSync(join(ROOT, 'package.json')).mtimeMs;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(dir);
  return newest;
}

if (!existsSync(OUT) || statSync(OUT).mtimeMs < newestSource()) {
  await build({
    entryPoints: [ENTRY],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
}
// Errors point at the TypeScript sources.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(OUT).href);
