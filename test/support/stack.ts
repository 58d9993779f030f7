import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createLogger } from '../../server/lib/logging';
import { ensureWidgetBuilt, startStack, type Stack } from '../../scripts/start';

/** What the e2e global setup hands the test workers, through the environment. */
export interface E2eStackEnv {
  E2E_DEMO_URL: string;
  E2E_BFF_URL: string;
  E2E_SANDBOX_URL: string;
  E2E_MERCHANT_SECRET: string;
  /** JSON lines written by the BFF's and the sandbox's loggers during the run. */
  E2E_BFF_LOG: string;
  E2E_SANDBOX_LOG: string;
}

export interface TestStack extends Stack {
  env: E2eStackEnv;
}

/**
 * The whole product for end-to-end tests: the widget built, then sandbox, BFF and storefront
 * in this process on free loopback ports, over SQLite files in a temporary folder. The BFF and
 * sandbox log at `debug` into files, so specs can prove no card data reaches a log line.
 */
export async function startTestStack(): Promise<TestStack> {
  ensureWidgetBuilt({ quiet: true });
  const dir = mkdtempSync(join(tmpdir(), 'card-checkout-e2e-'));
  const bffLog = join(dir, 'bff.log');
  const sandboxLog = join(dir, 'sandbox.log');
  const fileLogger = (name: string, file: string) =>
    createLogger({
      level: 'debug',
      name,
      destination: pino.destination({ dest: file, sync: true, mkdir: true }),
    });
  const stack = await startStack({
    dataDir: dir,
    merchantSecret: 'sk_test_e2e_merchant_secret',
    loggers: { bff: fileLogger('bff', bffLog), sandbox: fileLogger('sandbox', sandboxLog) },
    // Every spec pays from 127.0.0.1: the per-IP limit would throttle the suite.
    bffConfig: { payRateLimitPerMinute: 10_000 },
    demoCheckoutRateLimitPerMinute: 10_000,
  });
  return {
    ...stack,
    env: {
      E2E_DEMO_URL: stack.demoUrl,
      E2E_BFF_URL: stack.bffUrl,
      E2E_SANDBOX_URL: stack.sandboxUrl,
      E2E_MERCHANT_SECRET: stack.merchantSecret,
      E2E_BFF_LOG: bffLog,
      E2E_SANDBOX_LOG: sandboxLog,
    },
    async close() {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads the stack's addresses in a test worker. */
export function stackEnv(): E2eStackEnv {
  const keys = [
    'E2E_DEMO_URL',
    'E2E_BFF_URL',
    'E2E_SANDBOX_URL',
    'E2E_MERCHANT_SECRET',
    'E2E_BFF_LOG',
    'E2E_SANDBOX_LOG',
  ] as const;
  const out = {} as E2eStackEnv;
  for (const k of keys) {
    const v = process.env[k];
    if (!v) throw new Error(`${k} is not set: run the specs through playwright.config.ts`);
    out[k] = v;
  }
  return out;
}
