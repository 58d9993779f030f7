import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { randomBytes } from 'node:crypto';
import { TokenRequestSchema, type TokenResponse } from '../../gateway/schemas/auth';
import { MS } from '../../lib/clock';
import { errorResponse, parseJsonBody } from '../../lib/http';
import { constantTimeEqual, sha256Hex } from '../../lib/secrets';
import { resetCache } from '../cache';
import { findClient, type SandboxContext, type SandboxEnv } from '../context';
import type { TokenFamily } from './store';

/** Lifetime of a sandbox access token (the spec leaves it "not shown"; DESIGN §5: 1 hour). */
export const TOKEN_TTL_MS = MS.hour;

/** The two token operations: `/api/auth/token` (Gateway) and `/api/authentication/login`. */
export function authRoutes(ctx: SandboxContext): Hono {
  const issue = (family: TokenFamily) => async (c: Context) => {
    const body = await parseJsonBody(c, TokenRequestSchema);
    if (!body.ok) return body.response;
    const client = findClient(ctx, body.data.userName);
    // Compare even for an unknown user so timing does not reveal which user names exist.
    const passwordOk = constantTimeEqual(body.data.password, client?.password ?? '\0');
    if (!client || !passwordOk) {
      return errorResponse(c, 401, 'authentication', 'userName or password is incorrect');
    }
    const token = randomBytes(32).toString('base64url');
    // Security window: token lifetime runs on real time, whatever the sandbox date.
    const created = ctx.realClock.now();
    const expiration = new Date(created.getTime() + TOKEN_TTL_MS);
    await ctx.db
      .insertInto('access_tokens')
      .values({
        token_hash: sha256Hex(token),
        user_name: client.userName,
        family,
        created_at: created.toISOString(),
        expires_at: expiration.toISOString(),
      })
      .execute();
    const answer: TokenResponse = {
      authenticated: true,
      created: created.toISOString(),
      expiration: expiration.toISOString(),
      accessToken: token,
      message: 'OK',
    };
    return c.json(answer, 200);
  };
  return new Hono()
    .post('/api/auth/token', issue('gateway'))
    .post('/api/authentication/login', issue('integration'));
}

const BEARER = /^Bearer ([A-Za-z0-9_-]{16,200})$/;

interface TokenRow {
  family: string;
  user_name: string;
  expires_at: string;
}

/** Tokens seen, by hash: rows never change once issued. */
const TOKEN_CACHE_SIZE = 10_000;

async function lookupToken(ctx: SandboxContext, hash: string): Promise<TokenRow | undefined> {
  const cache = resetCache<TokenRow>(ctx, 'auth.tokens', TOKEN_CACHE_SIZE);
  const hit = cache.get(hash);
  if (hit) {
    // Expired entries leave the cache (the answer is still judged by the caller).
    if (new Date(hit.expires_at).getTime() <= ctx.realClock.now().getTime()) cache.delete(hash);
    return hit;
  }
  const row = await ctx.db
    .selectFrom('access_tokens')
    .select(['family', 'user_name', 'expires_at'])
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  if (row) cache.set(hash, row);
  return row;
}

/**
 * Requires `Authorization: Bearer <token>` with a live token of `family`. The scheme word is
 * exactly `Bearer`, as the spec says; expiry is judged on real time
 * (a security window), not on the sandbox's business clock.
 */
export function requireToken(
  ctx: SandboxContext,
  family: TokenFamily,
): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const deny = (why: string) => {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(c, 401, 'Authorization', why);
    };
    if (!header) return deny('Authorization: missing; send Authorization: Bearer <accessToken>');
    const m = BEARER.exec(header);
    if (!m) return deny('Authorization: must be the word Bearer, one space and the access token');
    const row = await lookupToken(ctx, sha256Hex(m[1]!));
    if (!row) return deny('Authorization: unknown access token');
    if (row.family !== family) {
      return deny(
        family === 'gateway'
          ? 'Authorization: an Integration API token cannot call the Gateway API; use /api/auth/token'
          : 'Authorization: a Gateway API token cannot call the Integration API; use /api/authentication/login',
      );
    }
    if (new Date(row.expires_at).getTime() <= ctx.realClock.now().getTime()) {
      return deny('Authorization: access token expired; request a new one');
    }
    const client = findClient(ctx, row.user_name);
    if (!client) return deny('Authorization: unknown client');
    c.set('client', client);
    await next();
  };
}
