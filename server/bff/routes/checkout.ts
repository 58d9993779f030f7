import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { randomBytes } from 'node:crypto';
import { MS } from '../../lib/clock';
import { errorResponse, parseJsonBody } from '../../lib/http';
import {
  ChallengeCancelBodySchema,
  ChallengeCompleteBodySchema,
  PayBodySchema,
} from '../checkout-api';
import type { BffContext, BffEnv } from '../context';
import { rateLimit } from '../http/middleware';
import { IDEMPOTENCY_KEY, runIdempotent, type StoredAnswer } from '../idempotency';
import {
  answeredPage,
  errorTitle,
  framePage,
  launcherPage,
  localeOf,
  messagePage,
  notFoundFramePage,
} from '../pages/html';
import {
  acceptChallengeReturn,
  cancelChallenge,
  completeChallenge,
  pay,
  type StepAnswer,
} from '../payments/service';
import { authenticateClientSecret, publicSession, refreshSession } from '../sessions/service';
import { findChallenge, findSession, setFrameAccept } from '../sessions/store';
import { createPublicKeyCache } from './public-key';

function nonce(): string {
  return randomBytes(16).toString('base64');
}

/** Headers every BFF page carries; the CSP is per page. */
function pageHeaders(c: Context, csp: string): void {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
}

/**
 * The frame API is same-origin with the frame page: a browser request from any other origin
 * is refused (the `Origin` header, when present, must be the BFF's own).
 */
function sameOriginOnly(ctx: BffContext): MiddlewareHandler<BffEnv> {
  const own = new URL(ctx.config.publicUrl).origin;
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== own) {
      return errorResponse(
        c,
        403,
        'Origin',
        'Origin: the checkout API is only for the checkout frame',
      );
    }
    await next();
    c.header('Cache-Control', 'no-store');
  };
}

/** `Authorization: Bearer <clientSecret>` → the session. */
function requireClientSecret(ctx: BffContext): MiddlewareHandler<BffEnv> {
  return async (c, next) => {
    const m = /^Bearer (\S{1,200})$/.exec(c.req.header('authorization') ?? '');
    const session = m ? await authenticateClientSecret(ctx, m[1]!) : undefined;
    if (!session) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(
        c,
        401,
        'Authorization',
        'Authorization: send Authorization: Bearer <client secret of the checkout session>',
      );
    }
    c.set('session', session);
    await next();
  };
}

function toStored(answer: StepAnswer): StoredAnswer {
  return answer.ok
    ? { status: 200, body: answer.result }
    : { status: answer.status, body: answer.items };
}

/** Runs a frame step under its Idempotency-Key (required for pay, optional for complete). */
async function idempotent(
  ctx: BffContext,
  c: Context<BffEnv>,
  scope: string,
  required: boolean,
  body: unknown,
  work: () => Promise<StepAnswer>,
): Promise<Response> {
  const key = c.req.header('idempotency-key');
  if (key === undefined && !required) {
    const a = toStored(await work());
    return c.json(a.body, a.status as 200);
  }
  if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
    return errorResponse(
      c,
      400,
      'Idempotency-Key',
      'Idempotency-Key: required, 8 to 100 characters of letters, digits, _ . : -',
    );
  }
  const out = await runIdempotent(
    ctx.db,
    { sessionId: c.get('session').id, scope, key, body, at: ctx.clock.now() },
    async () => toStored(await work()),
  );
  if (out.kind === 'conflict') return c.json(out.items, out.status);
  if (out.kind === 'replay') c.header('Idempotent-Replayed', 'true');
  return c.json(out.answer.body, out.answer.status as 200);
}

/** `/checkout/api/*`: what the frame calls, with the client secret. */
export function checkoutApiRoutes(ctx: BffContext): Hono<BffEnv> {
  const publicKey = createPublicKeyCache(ctx);
  const payLimit = rateLimit({
    limit: ctx.config.payRateLimitPerMinute,
    windowMs: MS.minute,
    clock: ctx.clock,
    clientAddress: ctx.clientAddress,
    what: 'payment attempts',
  });
  return new Hono<BffEnv>()
    .use('*', sameOriginOnly(ctx))
    .use('*', requireClientSecret(ctx))
    .get('/session', async (c) => {
      const row = await refreshSession(ctx, c.get('session'));
      return c.json(await publicSession(ctx, row));
    })
    .get('/public-key', async (c) => {
      try {
        return c.json({ key: await publicKey.get() });
      } catch (err) {
        c.get('log').warn({ err: { message: (err as Error).message } }, 'public key unavailable');
        return errorResponse(
          c,
          503,
          'gateway',
          'gateway: the card key is unavailable; try again later',
        );
      }
    })
    .post('/pay', payLimit, async (c) => {
      const body = await parseJsonBody(c, PayBodySchema);
      if (!body.ok) return body.response;
      const facts = {
        clientIp: ctx.clientAddress(c),
        userAgent: c.req.header('user-agent'),
        accept: c.req.header('accept'),
      };
      return idempotent(ctx, c, 'pay', true, body.data, () =>
        pay(ctx, c.get('session'), body.data, facts, c.get('log')),
      );
    })
    .post('/challenge/complete', async (c) => {
      const body = await parseJsonBody(c, ChallengeCompleteBodySchema);
      if (!body.ok) return body.response;
      return idempotent(ctx, c, 'complete', false, body.data, () =>
        completeChallenge(ctx, c.get('session'), body.data, c.get('log')),
      );
    })
    .post('/challenge/cancel', async (c) => {
      const body = await parseJsonBody(c, ChallengeCancelBodySchema);
      if (!body.ok) return body.response;
      const answer = await cancelChallenge(ctx, c.get('session'), body.data);
      const a = toStored(answer);
      return c.json(a.body, a.status as 200);
    });
}

/** `/checkout/frame` and the challenge pages (browsers and the ACS; no secrets in URLs). */
export function checkoutPageRoutes(ctx: BffContext): Hono<BffEnv> {
  return new Hono<BffEnv>()
    .get('/frame', async (c) => {
      const locale = localeOf(c.req.query('locale'));
      const id = c.req.query('session') ?? '';
      const row = id.length <= 64 ? await findSession(ctx.db, id) : undefined;
      if (!row) {
        pageHeaders(c, "default-src 'none'; frame-ancestors *; base-uri 'none'");
        return c.html(notFoundFramePage(locale), 404);
      }
      const accept = c.req.header('accept');
      if (accept && accept !== row.frame_accept) await setFrameAccept(ctx.db, row.id, accept);
      pageHeaders(
        c,
        [
          "default-src 'self'",
          "img-src 'self' data:",
          "object-src 'none'",
          "base-uri 'none'",
          "form-action 'none'",
          `frame-ancestors ${row.origin}`,
        ].join('; '),
      );
      return c.html(framePage({ sessionId: row.id, origin: row.origin, locale }));
    })
    .get('/challenge/:id', async (c) => {
      const locale = localeOf(c.req.query('locale'));
      const ch = await findChallenge(ctx.db, c.req.param('id'));
      const session = ch ? await findSession(ctx.db, ch.session_id) : undefined;
      if (!ch || !session) {
        pageHeaders(c, "default-src 'none'; base-uri 'none'");
        return c.html(
          messagePage({ title: errorTitle(locale), message: 'Unknown authentication.', locale }),
          404,
        );
      }
      const ancestors = `frame-ancestors ${session.origin}`;
      if (ch.status !== 'pending' || ctx.clock.now().getTime() >= Date.parse(ch.expires_at)) {
        pageHeaders(c, `default-src 'none'; base-uri 'none'; ${ancestors}`);
        return c.html(
          messagePage({
            title: errorTitle(locale),
            message: 'This authentication has ended.',
            locale,
          }),
          410,
        );
      }
      const n = nonce();
      pageHeaders(
        c,
        [
          "default-src 'none'",
          `script-src 'nonce-${n}'`,
          `form-action ${new URL(ch.acs_url).origin}`,
          "base-uri 'none'",
          ancestors,
        ].join('; '),
      );
      return c.html(
        launcherPage({
          acsUrl: ch.acs_url,
          pareq: ch.pareq,
          md: ch.md,
          termUrl: `${ctx.config.publicUrl}/checkout/challenge/${ch.id}/return`,
          nonce: n,
          locale,
        }),
      );
    })
    .post('/challenge/:id/return', async (c) => {
      const type = c.req.header('content-type') ?? '';
      if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
        pageHeaders(c, "default-src 'none'; base-uri 'none'");
        return c.html(messagePage({ title: 'Unsupported', message: 'Expected a form post.' }), 415);
      }
      let form: Record<string, unknown>;
      try {
        form = await c.req.parseBody();
      } catch {
        pageHeaders(c, "default-src 'none'; base-uri 'none'");
        return c.html(messagePage({ title: 'Bad request', message: 'Malformed form body.' }), 400);
      }
      const field = (name: string) => {
        const v = form[name];
        return typeof v === 'string' ? v : undefined;
      };
      const out = await acceptChallengeReturn(ctx, c.req.param('id'), {
        pares: field('PaRes'),
        md: field('MD'),
      });
      if (!out.ok) {
        c.get('log').warn(
          { challengeId: c.req.param('id'), status: out.status },
          'challenge answer refused',
        );
        pageHeaders(c, "default-src 'none'; base-uri 'none'");
        return c.html(messagePage({ title: 'Not accepted', message: out.reason }), out.status);
      }
      const n = nonce();
      pageHeaders(
        c,
        `default-src 'none'; script-src 'nonce-${n}'; base-uri 'none'; frame-ancestors ${out.origin}`,
      );
      c.get('log').info(
        { sessionId: out.challenge.session_id, challengeId: out.challenge.id },
        'challenge answered',
      );
      return c.html(
        answeredPage({
          challengeId: out.challenge.id,
          targetOrigin: out.origin,
          nonce: n,
          locale: 'pt-BR',
        }),
      );
    });
}
