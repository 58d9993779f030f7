import { serve } from '@hono/node-server';
import { resolve as resolvePath } from 'node:path';
import type { Logger } from 'pino';
import { createGatewayClient } from '../gateway/client';
import { openDb } from '../lib/db';
import { httpServerStopper } from '../lib/server-close';
import { listenError } from '../lib/listen-error';
import { InFlight } from './http/in-flight';
import { silentLogger } from '../lib/logging';
import { createBffApp, type Bff } from './app';
import type { BffDb } from './db';
import type { BffEnv } from './env';
import { startMaintenance } from './maintenance';
import { eventDeliveryOf } from './events/delivery';
import { registerWebhook } from './webhooks/register';
import { webhookReceiverOf } from './webhooks/receiver';
import type { BffContext } from './context';

export interface StartBffOptions {
  logger?: Logger;
  /**
   * Serve on a server bound already (its address is `env.config.publicUrl`), as `npm start`
   * does so that every URL is known before anything starts. Returns how to stop that server
   * (new requests refused, those under way given `graceMs`), which `close()` runs before
   * anything else closes; nothing when the caller stops it itself. Default: listen on
   * `env.host:env.port`.
   */
  serve?: (
    fetch: (req: Request) => Response | Promise<Response>,
  ) => ((graceMs: number) => Promise<void>) | void;
  /** Wait for the webhook URL registration before resolving (default: in the background). */
  awaitRegistration?: boolean;
}

export interface StartedBff {
  bff: Bff;
  dialect: 'sqlite' | 'postgres';
  /** Stops the server (see `serve`), the maintenance round, the inbox, then the store. */
  close(): Promise<void>;
}

/**
 * The BFF wired from its environment (`readBffEnv`): the store, the gateway client, the app,
 * the maintenance round, the HTTP server and the webhook registration. `server/bff/main.ts`
 * and `npm start` (scripts/start.ts) both start it this way.
 */
export async function startBff(env: BffEnv, opts: StartBffOptions = {}): Promise<StartedBff> {
  const logger = opts.logger ?? silentLogger;
  // A lone request's commit syncs on the event loop (no hand-off to the thread pool), and its
  // approval answers before its fsync.
  const inFlight = new InFlight();
  const store = await openDb<BffDb>({
    url: env.databaseUrl,
    durable: {
      alone: () => inFlight.alone(),
      onSyncError: (err) =>
        logger.error(
          { event: 'store.fsync_failed', err: { message: err.message } },
          'the disk failed to sync the store: payments answered meanwhile may not survive a power cut',
        ),
    },
    poolSize: env.databasePoolSize,
    namedStatements: env.databaseNamedStatements,
    durability: env.sqliteSync,
    onIdleConnectionError: (err) =>
      logger.warn(
        { err: err.message },
        'an idle PostgreSQL connection died; the pool opens another',
      ),
  }).catch((err: unknown) => {
    throw storeOpenError(env.databaseUrl, err);
  });
  let stopResolver: ((graceMs?: number) => Promise<void>) | null = null;
  let bffCtx: BffContext | null = null;
  try {
    const gateway = createGatewayClient({
      gatewayBaseUrl: env.gateway.gatewayBaseUrl,
      integrationBaseUrl: env.gateway.integrationBaseUrl,
      credentials: env.gateway.credentials,
      timeoutMs: env.gateway.timeoutMs,
    });
    const bff = await createBffApp({
      db: store.db,
      gateway,
      config: env.config,
      logger,
      inFlight,
    });
    bffCtx = bff.ctx;
    stopResolver =
      env.resolver.intervalMs > 0
        ? startMaintenance(bff.ctx, {
            accountNumber: env.resolver.accountNumber,
            intervalMs: env.resolver.intervalMs,
            strandedAfterMs: env.resolver.strandedAfterMs,
          })
        : null;
    let closeServer = async () => {};
    if (opts.serve) {
      const stopServing = opts.serve((req) => bff.app.fetch(req));
      if (stopServing) closeServer = () => stopServing(env.stopGraceMs);
    } else {
      const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
        const s = serve({ fetch: bff.app.fetch, port: env.port, hostname: env.host }, () =>
          resolve(s),
        );
        s.once('error', (err) =>
          reject(listenError('BFF', { port: 'BFF_PORT', host: 'BFF_HOST' }, env, err)),
        );
      });
      const stopServer = httpServerStopper(server, { waitForRunning: true });
      closeServer = () => stopServer(env.stopGraceMs);
    }
    const registration = env.webhookRegistration.enabled
      ? registerWebhook(gateway, {
          publicUrl: env.config.publicUrl,
          accountNumber: env.webhookRegistration.accountNumber,
          ...bff.ctx.config.webhook,
          logger,
        })
      : Promise.resolve();
    if (opts.awaitRegistration) await registration;
    else void registration;
    return {
      bff,
      dialect: store.dialect,
      async close() {
        eventDeliveryOf(bff.ctx)?.stop();
        // New requests are refused at once (those under way finish) while a maintenance round
        // under way ends: it may be waiting on the gateway, for seconds.
        await Promise.all([closeServer(), stopResolver?.(env.stopGraceMs)]);
        // A handler runs on after its client left (the socket closed, the server with it):
        // the gateway and the store close only once it has settled what it began.
        await inFlight.idle();
        await inboxStopped(bff.ctx, env.stopGraceMs, logger);
        gateway.close();
        await store.close();
      },
    };
  } catch (err) {
    // A failed listen (the port in use): the round it started, and the event delivery that
    // resumed at mounting, must not run on.
    if (bffCtx) eventDeliveryOf(bffCtx)?.stop();
    await stopResolver?.(env.stopGraceMs);
    if (bffCtx) await inboxStopped(bffCtx, env.stopGraceMs, logger);
    await store.close();
    throw err;
  }
}

/**
 * Waits, at most `graceMs`, for the webhook inbox processing under way (kicked by a maintenance
 * round or by a notification answered just before the server closed), which runs on after
 * both: the store must not close under it.
 */
async function inboxStopped(ctx: BffContext, graceMs: number, logger: Logger): Promise<void> {
  if (await webhookReceiverOf(ctx).idleWithin(graceMs)) return;
  logger.warn(
    { event: 'webhooks.stop_timeout', graceMs },
    'stopping without waiting longer for the webhook inbox processing under way; its claims lapse',
  );
}

/**
 * A store that would not open, told as configuration: the variable and, for SQLite, the file
 * (a PostgreSQL URL is never printed: it holds the password).
 */
function storeOpenError(databaseUrl: string, err: unknown): Error {
  const why = (err as Error).message;
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return new Error(`DATABASE_URL: cannot open the PostgreSQL store: ${why}`, { cause: err });
  }
  const file = databaseUrl === ':memory:' ? databaseUrl : resolvePath(databaseUrl);
  return new Error(
    `BFF_DB: cannot open ${file} as the BFF's SQLite store (${why}): point BFF_DB at the BFF's SQLite file, or at a path where a new one can be made`,
    { cause: err },
  );
}
