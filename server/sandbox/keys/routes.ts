import { Hono } from 'hono';
import type { PublicKeyResponse } from '../../gateway/schemas/keys';
import { errorResponse } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { paymentsState } from '../payments/state';

/** `GET /v1/cards/public-key`: the client's RSA public key (PEM, SPKI), made on first call. */
export function keysRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  return new Hono<SandboxEnv>().get('/cards/public-key', async (c) => {
    const client = c.get('client');
    let key: string;
    try {
      key = await paymentsState(ctx).keys.publicKey(client.userName);
    } catch (err) {
      ctx.logger.error({ err: { message: (err as Error).message } }, 'card key unavailable');
      return errorResponse(c, 400, 'key', 'key: error generating or recovering the key');
    }
    const answer: PublicKeyResponse = { key };
    return c.json(answer, 200);
  });
}
