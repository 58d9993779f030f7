import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { errorResponse, parseJsonBody, parseQuery } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { accountNumberParam, forbidOtherAccount } from '../reconciliation/query';
import { WebhookSubscriptionRequestSchema } from '../../gateway/schemas/webhooks';
import { unreachableReason } from './reachability';
import { notificationBody, type WebhookService } from './service';

const AccountQuery = z.object({ accountNumber: accountNumberParam });

/** The contract's body, strict: a misspelt field is refused rather than ignored. */
const SubscriptionBody = WebhookSubscriptionRequestSchema.strict();

/** Integration API: `/api/webhooks/subscriptions?accountNumber` POST, GET, DELETE. */
export function webhookApiRoutes(ctx: SandboxContext, webhooks: WebhookService): Hono<SandboxEnv> {
  void ctx;
  const account = (c: Context<SandboxEnv>) => {
    const q = parseQuery(c, AccountQuery);
    if (!q.ok) return q;
    const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
    if (denied) return { ok: false as const, response: denied };
    return { ok: true as const, data: c.get('client').accountNumber };
  };
  const none = (c: Context<SandboxEnv>) =>
    errorResponse(c, 404, 'accountNumber', 'accountNumber: no webhook URL is registered');

  return new Hono<SandboxEnv>()
    .post('/webhooks/subscriptions', async (c) => {
      const a = account(c);
      if (!a.ok) return a.response;
      const body = await parseJsonBody(c, SubscriptionBody);
      if (!body.ok) return body.response;
      const unreachable = await unreachableReason(body.data.url);
      if (unreachable) {
        return errorResponse(c, 400, 'url', `url: is not reachable: ${unreachable}`);
      }
      await webhooks.setSubscription(a.data, body.data.url, body.data.basicAuth);
      return c.json({ url: body.data.url });
    })
    .get('/webhooks/subscriptions', async (c) => {
      const a = account(c);
      if (!a.ok) return a.response;
      const sub = await webhooks.getSubscription(a.data);
      return sub ? c.json({ url: sub.url }) : none(c);
    })
    .delete('/webhooks/subscriptions', async (c) => {
      const a = account(c);
      if (!a.ok) return a.response;
      const sub = await webhooks.deleteSubscription(a.data);
      return sub ? c.json({ url: sub.url }) : none(c);
    });
}

const DeliveriesQuery = z.object({
  status: z.enum(['pending', 'delivered', 'failed', 'canceled']).optional(),
  accountNumber: accountNumberParam.optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, { error: 'must be at least 1' })
        .max(1000, { error: 'must be at most 1000' }),
    )
    .default(100),
});

/** `/__sandbox/webhook-deliveries`: the delivery log and manual redelivery. */
export function webhookControlRoutes(ctx: SandboxContext, webhooks: WebhookService): Hono {
  return new Hono()
    .get('/webhook-deliveries', async (c) => {
      const q = parseQuery(c, DeliveriesQuery);
      if (!q.ok) return q.response;
      let query = ctx.db.selectFrom('webhook_notifications').selectAll();
      if (q.data.status) query = query.where('status', '=', q.data.status);
      if (q.data.accountNumber) query = query.where('account_number', '=', q.data.accountNumber);
      const rows = await query.orderBy('movement_id', 'desc').limit(q.data.limit).execute();
      const ids = rows.map((r) => r.movement_id);
      const attempts = ids.length
        ? await ctx.db
            .selectFrom('webhook_attempts')
            .selectAll()
            .where('movement_id', 'in', ids)
            .orderBy('id')
            .execute()
        : [];
      const byId = new Map<number, typeof attempts>();
      for (const a of attempts) {
        const list = byId.get(a.movement_id) ?? [];
        list.push(a);
        byId.set(a.movement_id, list);
      }
      return c.json({
        items: rows.map((r) => ({
          id: r.movement_id,
          accountNumber: r.account_number,
          paymentId: r.payment_id,
          status: r.status,
          attemptCount: r.attempts,
          nextAttemptAt:
            r.next_attempt_ms === null ? null : new Date(Number(r.next_attempt_ms)).toISOString(),
          lastStatusCode: r.last_status_code,
          lastError: r.last_error,
          deliveredAt: r.delivered_at,
          createdAt: r.created_at,
          notification: notificationBody(r),
          attempts: (byId.get(r.movement_id) ?? []).map((a) => ({
            attempt: a.attempt,
            at: a.at,
            url: a.url,
            statusCode: a.status_code,
            error: a.error,
            durationMs: a.duration_ms,
          })),
        })),
      });
    })
    .post('/webhook-deliveries/:id/redeliver', async (c) => {
      const id = c.req.param('id');
      if (!/^\d{1,15}$/.test(id)) return errorResponse(c, 400, 'id', 'id: must be a movementId');
      const r = await webhooks.redeliver(Number(id));
      if (r === 'not_found') return errorResponse(c, 404, 'id', `id: no notification ${id}`);
      if (r === 'no_subscription') {
        return errorResponse(
          c,
          409,
          'accountNumber',
          'accountNumber: no webhook URL is registered',
        );
      }
      return c.json({ id: Number(id), status: 'pending' }, 202);
    });
}
