import { Hono } from 'hono';
import { sql } from 'kysely';
import type { BffContext, BffEnv } from '../context';

/** `/healthz` (the process answers) and `/readyz` (the store answers, a gateway token works). */
export function healthRoutes(ctx: BffContext): Hono<BffEnv> {
  return new Hono<BffEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const checks: Record<'database' | 'gateway', 'ok' | 'failing'> = {
        database: 'failing',
        gateway: 'failing',
      };
      try {
        await sql`select 1`.execute(ctx.db);
        checks.database = 'ok';
      } catch (err) {
        c.get('log').warn({ err: { message: (err as Error).message } }, 'readiness: database');
      }
      try {
        // Needs a valid token: proves the credentials and the gateway both work.
        await ctx.gateway.getPublicKey(undefined, { timeoutMs: 5000 });
        checks.gateway = 'ok';
      } catch (err) {
        c.get('log').warn({ err: { message: (err as Error).message } }, 'readiness: gateway');
      }
      const ready = checks.database === 'ok' && checks.gateway === 'ok';
      return c.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
    });
}
