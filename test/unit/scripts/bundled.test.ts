import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const made: string[] = [];
afterEach(() => {
  for (const p of made.splice(0)) rmSync(p, { recursive: true, force: true });
});

describe('scripts/bundled.mjs', () => {
  it('runs a fresh bundle where esbuild cannot be loaded (dev dependencies left out)', () => {
    // A bundle newer than every source: nothing to build.
    const bundle = join(ROOT, 'dist/server', `probe-${process.pid}.mjs`);
    mkdirSync(join(ROOT, 'dist/server'), { recursive: true });
    writeFileSync(bundle, "console.log('bundle ran');\n");
    made.push(bundle);
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(bundle, future, future);
    // A resolve hook that fails `esbuild` as if it were not installed.
    const dir = mkdtempSync(join(tmpdir(), 'no-esbuild-'));
    made.push(dir);
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `export async function resolve(spec, ctx, next) {
        if (spec === 'esbuild') throw Object.assign(new Error("Cannot find package 'esbuild'"), { code: 'ERR_MODULE_NOT_FOUND' });
        return next(spec, ctx);
      }\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(register).href,
        '--input-type=module',
        '-e',
        `const { runBundled } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts/bundled.mjs')).href)});
         await runBundled('probe-${process.pid}', 'server/none.ts');`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stderr).not.toMatch(/esbuild/);
    expect(run.stdout).toContain('bundle ran');
    expect(run.status).toBe(0);
  });
});
