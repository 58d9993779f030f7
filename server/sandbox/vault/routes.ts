import { Hono } from 'hono';
import { VaultRequestSchema, type VaultResponse } from '../../gateway/schemas/keys';
import { parseJsonBody } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { vaultCard } from './service';

/** `POST /v1/cards/vault` (DESIGN §5): keeps a card's facts and answers `{vaultId}`. */
export function vaultRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  return new Hono<SandboxEnv>().post('/cards/vault', async (c) => {
    const body = await parseJsonBody(c, VaultRequestSchema);
    if (!body.ok) return body.response;
    const result = await vaultCard(ctx, c.get('client'), body.data);
    if (!result.ok) return c.json(result.items, 400);
    const answer: VaultResponse = { vaultId: result.vaultId };
    return c.json(answer, 200);
  });
}
