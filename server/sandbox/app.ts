import { Hono } from 'hono';
import { maxBody } from '../lib/body-limit';
import type { Logger } from 'pino';
import { OffsetClock, systemClock, type Clock } from '../lib/clock';
import { migrate } from '../lib/db';
import { errorResponse } from '../lib/http';
import { silentLogger } from '../lib/logging';
import { authRoutes, requireToken } from './auth/routes';
import { mountIntegrationDomains } from './reconciliation/mount';
import { openApiRoutes } from './openapi-routes';
import { callbackControlRoutes, registerCallbacks } from './callbacks/service';
import { DEFAULT_CLIENT, type SandboxClient } from './clients';
import { Scheduler } from './clock/scheduler';
import { loadClockOffset, saveClockOffset } from './clock/store';
import type { SandboxContext, SandboxEnv } from './context';
import { SandboxEvents } from './events';
import { clockControlRoutes } from './control/routes';
import { paymentsControlRoutes } from './control/payments';
import { sandboxMigrations, type SandboxKysely } from './db';
import { recurrenceRoutes, sandboxVaultPort } from './recurrence';
import { faultMiddleware } from './faults/faults';
import { resolveKek } from './keys/kek';
import { keysRoutes } from './keys/routes';
import { paymentsRoutes } from './payments/routes';
import { initPaymentsState } from './payments/state';
import { refundsRoutes } from './refunds/routes';
import { acsPages } from './three-ds/acs-pages';
import { vaultRoutes } from './vault/routes';

/** Every request body the sandbox reads is at most this large. */
export const SANDBOX_MAX_BODY_BYTES = 128 * 1024;

export interface SandboxDeps {
  db: SandboxKysely;
  publicUrl: string;
  clients?: readonly SandboxClient[];
  /** A clock to drive; by default real time plus the persisted offset. */
  clock?: OffsetClock;
  /** Real time for security windows (tokens, ciphertext age, nonces); injectable for tests. */
  realClock?: Clock;
  logger?: Logger;
  fetch?: typeof fetch;
  /**
   * Key-encryption key (32 bytes) wrapping the clients' card private keys; by default a random
   * one kept in `<db file>.kek` (mode 0600), or in memory for `:memory:`.
   */
  kek?: Buffer;
}

export interface Sandbox {
  app: Hono;
  ctx: SandboxContext;
  close(): Promise<void>;
}

/** Builds the whole gateway sandbox over a store: migrations run, the clock is restored. */
export async function createSandboxApp(deps: SandboxDeps): Promise<Sandbox> {
  await migrate(deps.db, sandboxMigrations);
  const clock = deps.clock ?? new OffsetClock(await loadClockOffset(deps.db));
  const resetHooks: (() => void | Promise<void>)[] = [];
  const closeHooks: (() => void | Promise<void>)[] = [];
  const logger = deps.logger ?? silentLogger;
  const scheduler = new Scheduler(
    clock,
    (offset) => saveClockOffset(deps.db, offset),
    (task, err) =>
      logger.error({ task, err: { message: (err as Error).message } }, 'scheduled task failed'),
  );
  const ctx: SandboxContext = {
    db: deps.db,
    clock,
    realClock: deps.realClock ?? systemClock,
    scheduler,
    clients: deps.clients ?? [DEFAULT_CLIENT],
    publicUrl: deps.publicUrl.replace(/\/$/, ''),
    logger,
    events: new SandboxEvents(logger),
    fetch: deps.fetch ?? fetch,
    onReset: (hook) => resetHooks.push(hook),
    onClose: (hook) => closeHooks.push(hook),
  };

  // Refuses a key that cannot open what the store holds wrapped (card keys, webhook credentials).
  const kek = await resolveKek(deps.db, deps.kek);
  initPaymentsState(ctx, kek);
  registerCallbacks(ctx);

  // Each domain mounts its routes here. Gateway API under /v1 and Integration API under /api
  // need a token of their own family; /__sandbox (control plane) and browser pages need none.
  const gatewayApi = new Hono<SandboxEnv>()
    .use('*', faultMiddleware(ctx))
    .use('*', requireToken(ctx, 'gateway'))
    .route('/', keysRoutes(ctx))
    .route('/', vaultRoutes(ctx))
    .route('/', paymentsRoutes(ctx))
    .route('/', refundsRoutes(ctx));
  // Recurring billing: plans, subscriptions, billings and the billing engine.
  gatewayApi.route('/', recurrenceRoutes(ctx, sandboxVaultPort));
  const integrationApi = new Hono<SandboxEnv>()
    .use('*', faultMiddleware(ctx))
    .use('*', requireToken(ctx, 'integration'));
  const control = new Hono()
    .route(
      '/',
      clockControlRoutes(ctx, async () => {
        for (const hook of resetHooks) await hook();
      }),
    )
    .route('/', paymentsControlRoutes(ctx))
    .route('/', callbackControlRoutes(ctx));
  const pages = new Hono().route('/', acsPages(ctx));

  // Bank slips, webhooks and the reconciliation ledger (Integration API and their controls).
  await mountIntegrationDomains(ctx, {
    integrationApi,
    control,
    kek,
  });

  const app = new Hono()
    // The largest spec body is a few KiB: refuse more before reading it all (chunked too).
    .use('*', maxBody(SANDBOX_MAX_BODY_BYTES))
    .use('/api/auth/token', faultMiddleware(ctx))
    .use('/api/authentication/login', faultMiddleware(ctx))
    .route('/', authRoutes(ctx))
    .route('/', openApiRoutes(ctx))
    .route('/__sandbox', control)
    .route('/', pages)
    .route('/v1', gatewayApi)
    .route('/api', integrationApi);

  app.notFound((c) => errorResponse(c, 404, 'path', `no route ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => {
    ctx.logger.error(
      { err: { message: err.message, stack: err.stack }, path: c.req.path },
      'unhandled',
    );
    return errorResponse(
      c,
      500,
      '',
      'The command could not be executed because of an unknown error',
    );
  });

  return {
    app,
    ctx,
    async close() {
      for (const hook of closeHooks) await hook();
      // Deliveries still out (their transports are closed now) record their outcomes first.
      await scheduler.settle();
    },
  };
}
