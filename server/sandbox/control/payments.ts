import { Hono } from 'hono';
import { z } from 'zod';
import { RefundStatusSchema } from '../../gateway/schemas/refunds';
import { errorResponse, parseJsonBody } from '../../lib/http';
import { findClient, type SandboxContext } from '../context';
import { FaultSchema, faultQueue } from '../faults/faults';
import { OutcomeOverrideSchema } from '../payments/outcomes';
import { paymentsState } from '../payments/state';
import { decideCancellationRequest, openCancellationRequest } from '../refunds/service';
import { listVault } from '../vault/service';

const CancellationRequestBodySchema = z
  .object({
    paymentId: z.string().min(1).max(36),
    /** Cents, like payment amounts; the whole payment when left out. */
    amount: z.number().int().min(1).max(9_999_999_999).optional(),
    description: z.string().min(1, { error: 'is required' }).max(255),
  })
  .strict();

const DecideBodySchema = z.object({ status: RefundStatusSchema }).strict();

const RotateBodySchema = z.object({ userName: z.string().min(1).max(30).optional() }).strict();

/**
 * `/__sandbox` routes of the payment domains: faults, outcome overrides, cancellation
 * requests, the vault listing and the card key rotation. JSON, no token.
 */
export function paymentsControlRoutes(ctx: SandboxContext): Hono {
  const faults = faultQueue(ctx);
  return new Hono()
    .post('/faults', async (c) => {
      const body = await parseJsonBody(c, FaultSchema);
      if (!body.ok) return body.response;
      return c.json(faults.add(body.data), 201);
    })
    .get('/faults', (c) => c.json({ items: faults.list() }))
    .delete('/faults', (c) => {
      faults.clear();
      return c.json({ items: [] });
    })
    .post('/outcomes', async (c) => {
      const body = await parseJsonBody(c, OutcomeOverrideSchema);
      if (!body.ok) return body.response;
      return c.json(paymentsState(ctx).outcomes.push(body.data), 201);
    })
    .get('/outcomes', (c) => c.json({ items: paymentsState(ctx).outcomes.list() }))
    .delete('/outcomes', (c) => {
      paymentsState(ctx).outcomes.clear();
      return c.json({ items: [] });
    })
    .post('/cancellation-requests', async (c) => {
      const body = await parseJsonBody(c, CancellationRequestBodySchema);
      if (!body.ok) return body.response;
      const result = await openCancellationRequest(ctx, body.data);
      if (!result.ok) return errorResponse(c, result.status, result.tag, result.description);
      return c.json(result.request, 201);
    })
    .post('/cancellation-requests/:id/decide', async (c) => {
      const body = await parseJsonBody(c, DecideBodySchema);
      if (!body.ok) return body.response;
      const result = await decideCancellationRequest(ctx, c.req.param('id'), body.data.status);
      if (!result.ok) return errorResponse(c, result.status, result.tag, result.description);
      return c.json(result.request, 200);
    })
    .get('/vault', async (c) => c.json({ items: await listVault(ctx) }))
    .post('/card-keys/rotate', async (c) => {
      const body = await parseJsonBody(c, RotateBodySchema);
      if (!body.ok) return body.response;
      const userName = body.data.userName ?? ctx.clients[0]!.userName;
      if (!findClient(ctx, userName)) {
        return errorResponse(c, 404, 'userName', 'userName: no such client');
      }
      return c.json({ key: await paymentsState(ctx).keys.rotate(userName) }, 200);
    });
}
