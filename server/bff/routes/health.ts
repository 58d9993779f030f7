import { Hono } from 'hono';
import { sql } from 'kysely';
import { durableStores } from '../../lib/db-sync';
import type { BffContext, BffEnv } from '../context';

/** How long `/readyz` reuses its gateway check: probes every second must not load the gateway. */
export const READY_GATEWAY_CACHE_MS = 5_000;

/** `/healthz` (the process answers) and `/readyz` (the store answers, a gateway token works). */
export function healthRoutes(ctx: BffContext): Hono<BffEnv> {
  let gatewayCheck: { at: number; result: Promise<boolean> } | undefined;
  /** One gateway call per few seconds, shared by every probe in between (even concurrent ones). */
  const gatewayOk = (log: BffContext['logger']): Promise<boolean> => {
    const now = ctx.clock.now().getTime();
    if (gatewayCheck && now - gatewayCheck.at < READY_GATEWAY_CACHE_MS) return gatewayCheck.result;
    const result = ctx.gateway
      // Needs a valid token: proves the credentials and the gateway both work.
      .getPublicKey(undefined, { timeoutMs: 5000 })
      .then(
        () => true,
        (err: unknown) => {
          log.warn({ err: { message: (err as Error).message } }, 'readiness: gateway');
          return false;
        },
      );
    gatewayCheck = { at: now, result };
    return result;
  };
  return new Hono<BffEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const checks: Record<'database' | 'gateway', 'ok' | 'failing'> = {
        database: 'failing',
        gateway: 'failing',
      };
      try {
        await sql`select 1`.execute(ctx.db);
        // A disk that failed an fsync keeps nothing durable until a restart (db-sync.ts).
        const failure = durableStores.get(ctx.db)?.failure;
        if (failure) throw new Error(`the store's disk failed an fsync: ${failure.message}`);
        checks.database = 'ok';
      } catch (err) {
        c.get('log').warn({ err: { message: (err as Error).message } }, 'readiness: database');
      }
      if (await gatewayOk(c.get('log'))) checks.gateway = 'ok';
      const ready = checks.database === 'ok' && checks.gateway === 'ok';
      return c.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
    });
}
