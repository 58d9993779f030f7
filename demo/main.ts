import { serve } from '@hono/node-server';
import { createLogger } from '../server/lib/logging';
import { createDemoApp } from './app';
import { readDemoEnv } from './env';

/** The demo storefront alone, on DEMO_PORT, against the BFF at BFF_URL. */
function main(): void {
  const env = readDemoEnv();
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'demo' });
  const { app } = createDemoApp({
    publicUrl: env.DEMO_PUBLIC_URL,
    bffUrl: env.BFF_URL,
    bffPublicUrl: env.BFF_PUBLIC_URL,
    merchantSecret: env.BFF_MERCHANT_SECRET,
    issuerOrigins: env.DEMO_ISSUER_ORIGINS,
    logger,
  });
  const server = serve({ fetch: app.fetch, port: env.DEMO_PORT, hostname: env.DEMO_HOST }, () => {
    logger.info({ url: env.DEMO_PUBLIC_URL, bff: env.BFF_PUBLIC_URL }, 'demo storefront ready');
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

try {
  main();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
