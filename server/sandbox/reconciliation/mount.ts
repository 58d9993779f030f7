import type { Hono } from 'hono';
import { bankSlipApiRoutes, bankSlipControlRoutes, registerBankSlips } from '../bank-slips/routes';
import type { SandboxContext, SandboxEnv } from '../context';
import { webhookApiRoutes, webhookControlRoutes } from '../webhooks/routes';
import { WebhookService } from '../webhooks/service';
import { reconciliationApiRoutes, reconciliationControlRoutes } from './routes';
import { registerReconciliation } from './service';

/**
 * Wires the Integration API domains into the sandbox: bank slips, webhook management and
 * delivery, and the reconciliation ledger. One call from `createSandboxApp`.
 */
export async function mountIntegrationDomains(
  ctx: SandboxContext,
  apps: { integrationApi: Hono<SandboxEnv>; control: Hono; kek: Buffer },
): Promise<{ webhooks: WebhookService }> {
  registerBankSlips(ctx);
  apps.integrationApi.route('/', bankSlipApiRoutes(ctx));
  apps.control.route('/', bankSlipControlRoutes(ctx));

  const webhooks = await WebhookService.create(ctx, apps.kek);
  apps.integrationApi.route('/', webhookApiRoutes(ctx, webhooks));
  apps.control.route('/', webhookControlRoutes(ctx, webhooks));
  registerReconciliation(ctx, webhooks);
  apps.integrationApi.route('/', reconciliationApiRoutes(ctx));
  apps.control.route('/', reconciliationControlRoutes(ctx, webhooks));
  webhooks.start();
  return { webhooks };
}
