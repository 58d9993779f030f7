// Prints the Chromium executable the tests will drive: Playwright's own browser when it is
// installed, else the system's (Debian's /usr/bin/chromium). Exits 1 when there is none.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function findBrowser() {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH))
    return process.env.CHROMIUM_PATH;
  try {
    const { chromium } = await import('playwright-core');
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    /* playwright-core without a downloaded browser */
  }
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (existsSync(p)) return p;
  }
  return null;
}

// Run as a script (any path: spaces and other characters are URL-encoded in import.meta.url).
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const found = await findBrowser();
  if (!found) {
    console.error('no Chromium found: install Playwright browsers or Debian chromium');
    process.exit(1);
  }
  console.log(found);
}
