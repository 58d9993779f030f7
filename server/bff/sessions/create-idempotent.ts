import type { Context } from 'hono';
import { errorResponse, type ErrorItem } from '../../lib/http';
import { openSealed, sealText } from '../../lib/secrets';
import type { CreateSessionBody, CreatedSession } from '../checkout-api';
import type { BffContext, BffEnv } from '../context';
import { IDEMPOTENCY_KEY, runIdempotent } from '../idempotency';
import { createSession } from './service';

class GatewayUnavailable extends Error {}

/** The idempotency scope of session creation (merchant keys share one namespace). */
const SCOPE = { sessionId: '', scope: 'create-session' } as const;
const SEAL_PURPOSE = 'idempotent-session-create';

/**
 * `POST /v1/checkout-sessions` with `Idempotency-Key`: the same semantics as the frame's pay.
 * A replay within a day answers the stored answer (`Idempotent-Replayed: true`), 409 while
 * the first request runs, 422 for the same key with another body. The stored answer keeps the
 * client secret sealed under the merchant secret (never readable from the database alone).
 */
export async function createSessionIdempotently(
  ctx: BffContext,
  c: Context<BffEnv>,
  key: string,
  body: CreateSessionBody,
): Promise<Response> {
  if (!IDEMPOTENCY_KEY.test(key)) {
    return errorResponse(
      c,
      400,
      'Idempotency-Key',
      'Idempotency-Key: 8 to 100 characters of letters, digits, _ . : -',
    );
  }
  const secret = ctx.config.merchantSecret;
  let unavailable: ErrorItem[] | null = null;
  const out = await runIdempotent(
    ctx.db,
    { ...SCOPE, key, body, at: ctx.clock.now() },
    async () => {
      const created = await createSession(ctx, body);
      if (!created.ok && created.status === 503) {
        // Not an answer to keep: the key is released so a retry can succeed.
        unavailable = created.items;
        throw new GatewayUnavailable();
      }
      if (!created.ok) return { status: created.status, body: created.items };
      c.get('log').info({ sessionId: created.value.id }, 'checkout session created');
      const sealed = sealText(secret, SEAL_PURPOSE, created.value.clientSecret);
      return { status: 201, body: { ...created.value, clientSecret: sealed } };
    },
  ).catch((err: unknown) => {
    if (err instanceof GatewayUnavailable) return null;
    throw err;
  });
  if (out === null) return c.json(unavailable, 503);
  if (out.kind === 'conflict') return c.json(out.items, out.status);
  if (out.kind === 'replay') c.header('Idempotent-Replayed', 'true');
  if (out.answer.status !== 201) return c.json(out.answer.body, out.answer.status as 400);
  const stored = out.answer.body as CreatedSession;
  const clientSecret = openSealed(secret, SEAL_PURPOSE, stored.clientSecret);
  if (clientSecret === null) {
    return errorResponse(
      c,
      409,
      'Idempotency-Key',
      'Idempotency-Key: the stored answer can no longer be read (the merchant secret changed); use a new key',
    );
  }
  return c.json({ ...stored, clientSecret }, 201);
}
