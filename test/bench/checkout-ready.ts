/**
 * Time to a usable card form: navigation start → `checkout-ready` on a minimal merchant page,
 * driving real Chromium over loopback against the whole stack (sandbox, BFF, the widget as
 * built). Cold: a fresh browser context (empty cache) per load. Warm: one context, primed once.
 * Each load gets its own checkout session, created server to server before the navigation (as
 * a merchant's server renders its page). Prints median and p95 and the bytes transferred.
 * Targets (issue 11, on an idle machine): median ≤ 150 ms warm, ≤ 300 ms cold.
 *
 *   npx tsx test/bench/checkout-ready.ts [loads]
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { DIST_DIR, ensureWidgetBuilt, startStack } from '../../scripts/start';
import type { WidgetManifest } from '../../vite.config';

const LOADS = Number(process.argv[2] ?? 20);

const findBrowserModule: string = '../../scripts/find-browser.mjs';
const { findBrowser } = (await import(findBrowserModule)) as {
  findBrowser(): Promise<string | null>;
};

function merchantPage(opts: { script: WidgetManifest; bffUrl: string; secret: string }): string {
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">
<title>Checkout</title>
<script type="module" src="${opts.bffUrl}/widget/${opts.script.hashedFile}" integrity="${opts.script.integrity}" crossorigin="anonymous"></script>
</head><body>
<script>document.addEventListener('checkout-ready', () => { window.__ready = performance.now(); }, true);</script>
<card-checkout endpoint="${opts.bffUrl}" session="${opts.secret}" locale="pt-BR"></card-checkout>
</body></html>`;
}

function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

async function main(): Promise<void> {
  ensureWidgetBuilt({ quiet: true });
  const manifest = JSON.parse(
    readFileSync(join(DIST_DIR, 'widget', 'manifest.json'), 'utf8'),
  ) as WidgetManifest;
  const executablePath = await findBrowser();
  if (!executablePath) throw new Error('no Chromium found');

  // The merchant's page: its own origin, allowed by the BFF like any merchant's.
  const secrets = new Map<string, string>();
  let bffUrl = '';
  const merchant: Server = createServer((req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('s') ?? '';
    const secret = secrets.get(id);
    if (!secret) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(merchantPage({ script: manifest, bffUrl, secret }));
  });
  await new Promise<void>((done) => merchant.listen(0, '127.0.0.1', done));
  const merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ready-'));
  const stack = await startStack({
    dataDir,
    extraAllowedOrigins: [merchantUrl],
    bffConfig: { payRateLimitPerMinute: 10_000 },
  });
  bffUrl = stack.bffUrl;
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });

  async function newSession(): Promise<string> {
    const res = await fetch(`${stack.bffUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.merchantSecret}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ amount: 4990, origin: merchantUrl }),
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`session: ${res.status}`);
    const body = (await res.json()) as { id: string; clientSecret: string };
    secrets.set(body.id, body.clientSecret);
    return body.id;
  }

  /** One load: ms from navigation start to checkout-ready, and bytes on the wire. */
  async function load(context: BrowserContext): Promise<{ ms: number; bytes: number }> {
    const id = await newSession();
    const page = await context.newPage();
    const sizes: Promise<number>[] = [];
    page.on('requestfinished', (req) => {
      sizes.push(
        req
          .sizes()
          .then((s) => s.responseBodySize + s.responseHeadersSize)
          .catch(() => 0),
      );
    });
    await page.goto(`${merchantUrl}/?s=${id}`);
    const handle = await page.waitForFunction(
      () => (window as unknown as { __ready?: number }).__ready,
      undefined,
      { timeout: 30_000 },
    );
    const ms = (await handle.jsonValue()) as number;
    const bytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
    await page.close();
    return { ms, bytes };
  }

  function report(name: string, runs: { ms: number; bytes: number }[]): void {
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const bytes = runs.map((r) => r.bytes).sort((a, b) => a - b);
    console.log(
      `${name.padEnd(5)} navigation → checkout-ready: median ${quantile(ms, 0.5).toFixed(0)} ms, ` +
        `p95 ${quantile(ms, 0.95).toFixed(0)} ms (min ${ms[0]!.toFixed(0)}, n=${ms.length}); ` +
        `transferred median ${(quantile(bytes, 0.5) / 1024).toFixed(1)} KiB`,
    );
  }

  try {
    const cold: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      cold.push(await load(context));
      await context.close();
    }
    const warmContext = await browser.newContext();
    await load(warmContext); // primes the cache
    const warm: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < LOADS; i++) warm.push(await load(warmContext));
    await warmContext.close();
    report('cold', cold);
    report('warm', warm);
    console.log('targets on an idle machine: median ≤ 300 ms cold, ≤ 150 ms warm');
  } finally {
    await browser.close();
    await stack.close();
    merchant.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
