import { Hono } from 'hono';
import { RefundListQuerySchema } from '../../gateway/schemas/refunds';
import { parseQuery } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { listCancellationRequests } from './service';

/** `GET /v1/refund/list`: the client's cancellation requests. */
export function refundsRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  return new Hono<SandboxEnv>().get('/refund/list', async (c) => {
    const q = parseQuery(c, RefundListQuerySchema);
    if (!q.ok) return q.response;
    const list = await listCancellationRequests(ctx, c.get('client').userName, q.data);
    return c.json(list, 200);
  });
}
