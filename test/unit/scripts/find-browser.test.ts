import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'find browser '));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/find-browser.mjs', () => {
  it('answers when run from a path with a space (.ci/run relies on its exit code)', () => {
    const script = join(dir, 'find-browser.mjs');
    copyFileSync(join(ROOT, 'scripts/find-browser.mjs'), script);
    // CHROMIUM_PATH names an existing file: the answer is that path.
    const found = spawnSync(process.execPath, [script], {
      env: { PATH: process.env.PATH, CHROMIUM_PATH: process.execPath },
      encoding: 'utf8',
    });
    expect(found.status).toBe(0);
    expect(found.stdout.trim()).toBe(process.execPath);
  });
});
