/**
 * `npm run bench`: runs every other `test/bench/*.ts` in sequence, each as its own process
 * (`npx tsx <file>`), streaming its output. Exits non-zero when any benchmark failed.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));

const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== self && !f.endsWith('.d.ts'))
  .sort();

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['tsx', join(here, file)], { stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });
}

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file} ==`);
  const started = performance.now();
  const code = await run(file);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`== ${file}: ${code === 0 ? 'done' : `failed (exit ${code})`} in ${seconds} s ==`);
  if (code !== 0) failed++;
}
console.log(`\n${files.length - failed}/${files.length} benchmarks ran`);
process.exit(failed ? 1 : 0);
