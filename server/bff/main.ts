import { createLogger } from '../lib/logging';
import { readBffEnv } from './env';
import { staticDirProblem } from './routes/static';
import { startBff } from './start';

/** `npm run bff` (or `tsx server/bff/main.ts`): the BFF alone, configured by the environment. */
async function main(): Promise<void> {
  const env = readBffEnv();
  const staticProblem = staticDirProblem(env.config.staticDir);
  if (staticProblem) throw new Error(`invalid BFF configuration:\n  ${staticProblem}`);
  for (const line of env.warnings) console.warn(line);
  const logger = createLogger({ level: env.logLevel, name: 'bff' });
  const started = await startBff(env, { logger });
  // Before saying "ready": whoever waits for that line may stop us the moment it reads it.
  const stop = async () => {
    await started.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  console.log(`BFF ready at ${env.config.publicUrl} (store: ${started.dialect})`);
  console.log(`  gateway: ${env.gateway.gatewayBaseUrl}`);
  console.log(`  allowed origins: ${env.config.allowedOrigins.join(', ')}`);
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
