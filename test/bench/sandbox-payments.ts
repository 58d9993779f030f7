/**
 * Throughput and latency of sandbox payments: `npx tsx test/bench/sandbox-payments.ts`.
 *
 * Starts the sandbox as `npm run sandbox` does (`scripts/sandbox.mjs`: the bundled
 * `server/sandbox/main.ts`) as its own process (SQLite file in a temp dir, logs silent)
 * on a free loopback port, so the load generator here does not share its event loop, then
 * sends frictionless `POST /v1/payments/3ds` at concurrency 32 with plain card fields and
 * with encrypted cards. Prints start-up time, payments/s, p50 and p99.
 * Env: BENCH_REQUESTS (default 5000), BENCH_CONCURRENCY (32), BENCH_SECONDS (15, a cap),
 * BENCH_WARMUP (3000 unmeasured requests first),
 * BENCH_PROFILE_DIR (write V8 CPU profiles of the sandbox process there), BENCH_ENCRYPTED=0
 * (skip the encrypted-card run).
 */
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/child-server';
import { benchClient, percentile } from './lib/http';
import { sandboxCredentials, startSandboxProcess } from './lib/sandbox-process';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);

const client = benchClient(CONCURRENCY);

async function load(
  name: string,
  makeBody: () => unknown,
  port: number,
  token: string,
  count: number,
) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const deadline = performance.now() + MAX_SECONDS * 1000;
  const started = performance.now();
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
      next++;
      const body = makeBody();
      const t0 = performance.now();
      const res = await client.request(port, 'POST', '/v1/payments/3ds', body, token);
      latencies.push(performance.now() - t0);
      if (res.status !== 200 || !res.body.includes('"returnCode":"00"')) {
        failures++;
        if (failures === 1)
          console.error(`${name}: unexpected ${res.status} ${res.body.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(34)} ${String(latencies.length).padStart(6)} req  ${(latencies.length / seconds).toFixed(0).padStart(6)} payments/s  ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms  p90 ${percentile(latencies, 90).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms  max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms  failures ${failures}`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
  const port = await freePort();
  // Cold: a fresh database (migrations run). Warm: the same database again.
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const cold = await startSandboxProcess(join(dir, 'sandbox.sqlite'), port, profileDir);
  await cold.stop();
  const { startupMs, stop } = await startSandboxProcess(
    join(dir, 'sandbox.sqlite'),
    port,
    profileDir,
  );
  console.log(
    `sandbox start-up: cold ${cold.startupMs.toFixed(0)} ms, warm ${startupMs.toFixed(0)} ms (spawn to ready)`,
  );
  try {
    const { token, pem } = await sandboxCredentials(client, port);
    const year = String((new Date().getUTCFullYear() + 3) % 100);
    const base = {
      payment: { transactionType: 'debit', amount: 2500, productType: 'debito', installments: 1 },
      sellerInfo: {
        codeAntiFraud: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
        code3DS: 'bench',
        urlSite3DS: 'http://localhost:3000/checkout',
      },
      // Every field the spec marks "needed for 3DS".
      deviceInfo: {
        httpAcceptBrowserValue: 'text/html',
        httpAcceptContent: 'text/html',
        httpBrowserLanguage: 'pt-BR',
        httpBrowserJavaEnabled: 'N',
        httpBrowserJavaScriptEnabled: 'Y',
        httpBrowserColorDepth: 24,
        httpBrowserScreenHeight: 900,
        httpBrowserScreenWidth: 1440,
        httpBrowserTimeDifference: 180,
        userAgentBrowserValue: 'bench',
      },
    };
    const plain = () => ({
      ...base,
      cardInfo: {
        cardholderName: 'BENCH',
        number: '4000000000002701',
        securityCode: '123',
        expirationMonth: '12',
        expirationYear: year,
      },
    });
    const encrypted = () => ({
      ...base,
      cardInfo: {
        cardholderName: 'BENCH',
        encryptedCard: publicEncrypt(
          { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
          Buffer.from(
            JSON.stringify({
              number: '4000000000002701',
              securityCode: '123',
              expirationMonth: '12',
              expirationYear: year,
              timestamp: Date.now(),
              nonce: randomBytes(8).toString('hex'),
            }),
          ),
        ).toString('base64'),
      },
    });
    // Warm-up, not measured: V8 needs a few thousand requests before the hot paths are
    // optimized (a 500-request warm-up left the first 2,000 measured ones twice as slow).
    await load('warm-up', plain, port, token, WARMUP);
    console.log(`concurrency ${CONCURRENCY}, up to ${REQUESTS} requests or ${MAX_SECONDS} s each`);
    await load('3ds frictionless, plain card', plain, port, token, REQUESTS);
    if (process.env.BENCH_ENCRYPTED !== '0')
      await load(
        '3ds frictionless, encryptedCard',
        encrypted,
        port,
        token,
        Math.ceil(REQUESTS / 2),
      );
  } finally {
    await stop();
    client.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
