import { Hono, type Context } from 'hono';
import { errorResponse, parseJsonBody, parseQuery, zodErrorItems } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { cancelBilling, searchBillings } from './billings';
import type { Result } from './common';
import { BillingEngine } from './engine';
import { createPlan, getPlan, searchPlans, setPlanStatus, updatePlan } from './plans';
import {
  BillingSearchQuerySchema,
  CreatePlanBodySchema,
  CreateSubscriptionBodySchema,
  IdParamSchema,
  PlanSearchQuerySchema,
  PlanStatusBodySchema,
  SubscriptionSearchQuerySchema,
  SubscriptionStatusBodySchema,
  SubscriptionVaultBodySchema,
  UpdatePlanBodySchema,
} from './schemas';
import {
  createSubscription,
  getSubscription,
  searchSubscriptions,
  setSubscriptionStatus,
  setSubscriptionVault,
} from './subscriptions';
import type { VaultPort } from './vault-port';

type C = Context<SandboxEnv>;

/** Path ids are strings of at most 36 characters (spec, Limits). */
function pathId(c: C, name: string): { ok: true; id: string } | { ok: false; response: Response } {
  const raw = c.req.param(name) ?? '';
  const parsed = IdParamSchema.safeParse(raw);
  if (!parsed.success) {
    const items = zodErrorItems(parsed.error).map((i) => ({
      tag: name,
      description: `${name}: ${i.description.replace(/^body: /, '')}`,
    }));
    return { ok: false, response: c.json(items, 400) };
  }
  return { ok: true, id: parsed.data };
}

function answer<T>(c: C, result: Result<T>, body: (value: T) => unknown): Response {
  if (!result.ok) return errorResponse(c, result.status, result.tag, result.description);
  return c.json(body(result.value) as object, 200);
}

/**
 * Recurring billing under the Gateway API (`/v1/recurrences/…`, spec: Plans, Subscriptions,
 * Billings), scoped to the token's client. Every change runs exclusive with clock advances so
 * an advance never interleaves with a request's writes; the billing engine is registered with
 * the scheduler here.
 */
export function recurrenceRoutes(ctx: SandboxContext, vaults: VaultPort): Hono<SandboxEnv> {
  ctx.scheduler.register(new BillingEngine(ctx, vaults));
  const exclusive = <T>(fn: () => Promise<T>) => ctx.scheduler.exclusive(fn);

  return (
    new Hono<SandboxEnv>()
      // ---- plans
      .post('/recurrences/plans', async (c) => {
        const body = await parseJsonBody(c, CreatePlanBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() => createPlan(ctx, c.get('client'), body.data));
        return answer(c, r, (id) => id);
      })
      .get('/recurrences/plans', async (c) => {
        const q = parseQuery(c, PlanSearchQuerySchema);
        if (!q.ok) return q.response;
        return c.json(await searchPlans(ctx, c.get('client').userName, q.data), 200);
      })
      .get('/recurrences/plans/:planId', async (c) => {
        const id = pathId(c, 'planId');
        if (!id.ok) return id.response;
        return answer(c, await getPlan(ctx, c.get('client').userName, id.id), (p) => p);
      })
      .post('/recurrences/plans/:planId', async (c) => {
        const id = pathId(c, 'planId');
        if (!id.ok) return id.response;
        const body = await parseJsonBody(c, UpdatePlanBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() => updatePlan(ctx, c.get('client'), id.id, body.data));
        return answer(c, r, (v) => v);
      })
      .post('/recurrences/plans/:planId/status', async (c) => {
        const id = pathId(c, 'planId');
        if (!id.ok) return id.response;
        const body = await parseJsonBody(c, PlanStatusBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() =>
          setPlanStatus(ctx, c.get('client').userName, id.id, body.data.status),
        );
        return answer(c, r, (v) => v);
      })
      // ---- subscriptions
      .post('/recurrences/subscriptions', async (c) => {
        const body = await parseJsonBody(c, CreateSubscriptionBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() =>
          createSubscription(ctx, vaults, c.get('client'), body.data),
        );
        // No trial: the first installment is due now and is charged before answering.
        if (r.ok && r.value.dueNow) await ctx.scheduler.runDueNow();
        return answer(c, r, (v) => v.id);
      })
      .get('/recurrences/subscriptions', async (c) => {
        const q = parseQuery(c, SubscriptionSearchQuerySchema);
        if (!q.ok) return q.response;
        return c.json(await searchSubscriptions(ctx, c.get('client').userName, q.data), 200);
      })
      .get('/recurrences/subscriptions/:subscriptionId', async (c) => {
        const id = pathId(c, 'subscriptionId');
        if (!id.ok) return id.response;
        return answer(c, await getSubscription(ctx, c.get('client').userName, id.id), (s) => s);
      })
      .post('/recurrences/subscriptions/:subscriptionId/status', async (c) => {
        const id = pathId(c, 'subscriptionId');
        if (!id.ok) return id.response;
        const body = await parseJsonBody(c, SubscriptionStatusBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() =>
          setSubscriptionStatus(ctx, c.get('client').userName, id.id, body.data.status),
        );
        if (r.ok && r.value.dueNow) await ctx.scheduler.runDueNow();
        return answer(c, r, (v) => ({ id: v.id }));
      })
      .post('/recurrences/subscriptions/:subscriptionId/vault', async (c) => {
        const id = pathId(c, 'subscriptionId');
        if (!id.ok) return id.response;
        const body = await parseJsonBody(c, SubscriptionVaultBodySchema);
        if (!body.ok) return body.response;
        const r = await exclusive(() =>
          setSubscriptionVault(ctx, vaults, c.get('client').userName, id.id, body.data.vaultId),
        );
        return answer(c, r, (v) => ({ id: v }));
      })
      // ---- billings
      .get('/recurrences/billing', async (c) => {
        const q = parseQuery(c, BillingSearchQuerySchema);
        if (!q.ok) return q.response;
        return c.json(await searchBillings(ctx, c.get('client').userName, q.data), 200);
      })
      .post('/recurrences/billing/:billingId/cancel', async (c) => {
        const id = pathId(c, 'billingId');
        if (!id.ok) return id.response;
        const r = await exclusive(() => cancelBilling(ctx, c.get('client').userName, id.id));
        return answer(c, r, (v) => v);
      })
  );
}
