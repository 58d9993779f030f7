import { serve } from '@hono/node-server';
import { openDb } from '../lib/db';
import { listenError } from '../lib/listen-error';
import { createLogger } from '../lib/logging';
import { httpServerStopper } from '../lib/server-close';
import { createSandboxApp } from './app';
import { DEFAULT_CLIENT, loadClients } from './clients';
import type { SandboxDb } from './db';
import { decodeKek } from './keys/kek';
import { readSandboxEnv } from './env';
import { clockOffsetNotice } from './clock/store';

/** How long a stop waits for the requests under way (a fault's latency, a slow client). */
const STOP_GRACE_MS = 10_000;

/** `npm run sandbox`: the gateway sandbox alone, on SANDBOX_PORT. */
async function main(): Promise<void> {
  const env = readSandboxEnv();
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'sandbox' });
  const { db, close: closeDb } = await openDb<SandboxDb>({
    url: env.SANDBOX_DB,
    cacheStatements: true,
    // Test data: commits survive a crash or restart of the process, without fsyncs.
    durability: 'process',
  });
  const sandbox = await createSandboxApp({
    db,
    publicUrl: env.SANDBOX_PUBLIC_URL,
    clients: loadClients(env.SANDBOX_CLIENTS_FILE),
    logger,
    ...(env.SANDBOX_KEK ? { kek: decodeKek(env.SANDBOX_KEK) } : {}),
  });
  const server = serve(
    { fetch: sandbox.app.fetch, port: env.SANDBOX_PORT, hostname: env.SANDBOX_HOST },
    () => {
      console.log(`sandbox ready at ${env.SANDBOX_PUBLIC_URL} (both APIs, ACS pages, /__sandbox)`);
      console.log(
        `  credentials: userName=${DEFAULT_CLIENT.userName} password=${DEFAULT_CLIENT.password} accountNumber=${DEFAULT_CLIENT.accountNumber}`,
      );
      const notice = clockOffsetNotice(sandbox.ctx.clock.offset, sandbox.ctx.clock.now());
      if (notice) console.log(notice);
    },
  );
  const stopServer = httpServerStopper(server, { waitForRunning: false });
  // The port in use, or a SANDBOX_HOST that is not this machine: one line, not a stack trace.
  server.once('error', (err) => {
    const at = { host: env.SANDBOX_HOST, port: env.SANDBOX_PORT };
    console.error(
      listenError('sandbox', { port: 'SANDBOX_PORT', host: 'SANDBOX_HOST' }, at, err).message,
    );
    process.exit(1);
  });
  // New requests refused, those under way answered within the grace (then every connection is
  // closed), then the app's deliveries and the store. Once: npm passes a Ctrl+C on too.
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await stopServer(STOP_GRACE_MS);
      await sandbox.close();
      await closeDb();
      process.exit(0);
    })());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
