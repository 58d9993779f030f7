import { Hono } from 'hono';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../lib/clock';
import { migrate } from '../lib/db';
import { errorResponse } from '../lib/http';
import { silentLogger } from '../lib/logging';
import { BFF_DEFAULTS, type BffConfig } from './config';
import type { BffContext, BffEnv } from './context';
import type { BffKysely } from './db';
import { storeRateLimits, type RateLimits } from './http/rate-limits';
import { BFF_MIGRATIONS } from './migrations';
import type { BffGateway } from './gateway-port';
import { clientAddressReader } from './http/client-address';
import { maxBody } from '../lib/body-limit';
import { answersAfterDisk, requestContext } from './http/middleware';
import { baselineSecurityHeaders } from './http/security-headers';
import { checkoutApiRoutes, checkoutPageRoutes } from './routes/checkout';
import { healthRoutes } from './routes/health';
import { merchantRoutes } from './routes/merchant';
import { eventRoutes } from './routes/events';
import { openApiRoutes } from './routes/openapi';
import { createPublicKeyCache } from './routes/public-key';
import { mountEventDelivery } from './events/delivery';
import { merchantApiErrors } from './http/api-errors';
import { staticRoutes } from './routes/static';
import { webhookNotificationRoutes } from './webhooks/notifications';
import { webhookReceiverRoutes } from './webhooks/receiver';
import { InFlight } from './http/in-flight';
import { join } from 'node:path';

export interface BffDeps {
  db: BffKysely;
  /** The gateway client (`createGatewayClient`) or a test double of the same shape. */
  gateway: BffGateway;
  config: BffConfig;
  clock?: Clock;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Where rate limits are counted: the store by default (one limit across instances). */
  rateLimits?: RateLimits;
  /** Counts the requests in flight, for a durable SQLite store's `alone`. */
  inFlight?: InFlight;
}

export interface Bff {
  app: Hono<BffEnv>;
  ctx: BffContext;
}

/**
 * Builds the BFF over its store and gateway client: migrations run first. No route reads the
 * environment; `main.ts` builds the deps from `env.ts`.
 */
export async function createBffApp(deps: BffDeps): Promise<Bff> {
  await migrate(deps.db, BFF_MIGRATIONS);
  const config: Required<BffConfig> = {
    ...BFF_DEFAULTS,
    ...deps.config,
    publicUrl: deps.config.publicUrl.replace(/\/+$/, ''),
  };
  const clock = deps.clock ?? systemClock;
  const ctx: BffContext = {
    db: deps.db,
    gateway: deps.gateway,
    config,
    clock,
    logger: deps.logger ?? silentLogger,
    fetch: deps.fetch ?? fetch,
    clientAddress: clientAddressReader(config.trustProxy, () =>
      ctx.logger.warn(
        { event: 'proxy.untrusted' },
        'requests carry X-Forwarded-For but BFF_TRUST_PROXY names no proxy: every client ' +
          'behind that proxy shares its address and its rate limits (see "Running behind a proxy")',
      ),
    ),
    rateLimits: deps.rateLimits ?? storeRateLimits(deps.db),
    publicKey: createPublicKeyCache({
      db: deps.db,
      gateway: deps.gateway,
      clock,
      ttlMs: config.publicKeyTtlMs,
    }),
  };

  mountEventDelivery(ctx);

  const app = new Hono<BffEnv>()
    .use('*', (deps.inFlight ?? new InFlight()).middleware())
    .use('*', requestContext(ctx.logger))
    .use('*', baselineSecurityHeaders(config.publicUrl))
    // Card ciphertexts are ~350 bytes and PaRes a few KiB: nothing legitimate is larger.
    .use('/v1/*', merchantApiErrors())
    // A NUL in a path or query would reach a query as text, which PostgreSQL refuses (a 500).
    // After merchantApiErrors: a /v1 refusal is in the merchant API's error shape too.
    .use('*', async (c, next) => {
      if (/%00/i.test(c.req.url)) {
        return errorResponse(c, 400, 'url', 'url: must not contain a NUL character (%00)');
      }
      await next();
    })
    .use('/v1/*', maxBody(32 * 1024))
    .use('/checkout/*', maxBody(32 * 1024))
    // A notification is a few hundred bytes; counted as read, so chunked bodies are held too.
    .use('/webhooks/*', maxBody(16 * 1024))
    .use('/v1/*', answersAfterDisk(deps.db))
    .use('/checkout/*', answersAfterDisk(deps.db))
    .route('/', healthRoutes(ctx))
    .route('/', openApiRoutes(ctx))
    .route('/v1', merchantRoutes(ctx))
    .route('/v1', webhookNotificationRoutes(ctx))
    .route('/v1', eventRoutes(ctx))
    .route('/checkout/api', checkoutApiRoutes(ctx))
    .route('/checkout', checkoutPageRoutes(ctx))
    .route('/webhooks', webhookReceiverRoutes(ctx))
    .route('/widget', staticRoutes(join(config.staticDir, 'widget')))
    .route('/frame', staticRoutes(join(config.staticDir, 'frame')));

  app.notFound((c) => errorResponse(c, 404, 'path', `no route ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => {
    const log = c.get('log') ?? ctx.logger;
    log.error({ err: { message: err.message, stack: err.stack }, path: c.req.path }, 'unhandled');
    return errorResponse(
      c,
      500,
      '',
      'The command could not be executed because of an unknown error',
    );
  });

  return { app, ctx };
}
