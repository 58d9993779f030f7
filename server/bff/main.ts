import { serve } from '@hono/node-server';
import { createGatewayClient } from '../gateway/client';
import { openDb } from '../lib/db';
import { createLogger } from '../lib/logging';
import { createBffApp } from './app';
import type { BffDb } from './db';
import { startUnknownAttemptResolver } from './payments/resolver';
import { registerWebhook } from './webhooks/register';
import { readBffEnv } from './env';

/** `tsx server/bff/main.ts`: the BFF alone, on BFF_PORT, configured by the environment. */
async function main(): Promise<void> {
  const env = readBffEnv();
  for (const line of env.warnings) console.warn(line);
  const logger = createLogger({ level: env.logLevel, name: 'bff' });
  const {
    db,
    dialect,
    close: closeDb,
  } = await openDb<BffDb>({
    url: env.databaseUrl,
    poolSize: env.databasePoolSize,
  });
  const gateway = createGatewayClient({
    gatewayBaseUrl: env.gateway.gatewayBaseUrl,
    integrationBaseUrl: env.gateway.integrationBaseUrl,
    credentials: env.gateway.credentials,
    timeoutMs: env.gateway.timeoutMs,
  });
  const { app, ctx } = await createBffApp({ db, gateway, config: env.config, logger });
  const stopResolver =
    env.resolver.intervalMs > 0
      ? startUnknownAttemptResolver(ctx, {
          accountNumber: env.resolver.accountNumber,
          intervalMs: env.resolver.intervalMs,
          strandedAfterMs: env.resolver.strandedAfterMs,
        })
      : null;
  const server = serve({ fetch: app.fetch, port: env.port, hostname: env.host }, () => {
    console.log(`BFF ready at ${env.config.publicUrl} (store: ${dialect})`);
    console.log(`  gateway: ${env.gateway.gatewayBaseUrl}`);
    console.log(`  allowed origins: ${env.config.allowedOrigins.join(', ')}`);
    if (env.webhookRegistration.enabled) {
      void registerWebhook(gateway, {
        publicUrl: env.config.publicUrl,
        accountNumber: env.webhookRegistration.accountNumber,
        ...env.config.webhook,
        logger,
      });
    }
  });
  const stop = async () => {
    server.close();
    await stopResolver?.();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
