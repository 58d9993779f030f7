import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { MS } from '../../lib/clock';
import { errorResponse, parseJsonBody } from '../../lib/http';
import {
  ChallengeCancelBodySchema,
  ChallengeCompleteBodySchema,
  PayBodySchema,
  type PayResult,
} from '../checkout-api';
import type { BffContext, BffEnv } from '../context';
import { rateLimit, setResponseHeader } from '../http/middleware';
import {
  IDEMPOTENCY_KEY,
  runIdempotent,
  type AnswerKeeper,
  type StoredAnswer,
} from '../idempotency';
import type { BffKysely } from '../db';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { compressPage } from '../http/compress-page';
import { HANDSHAKE_HEADER, handshakeKey, openAccept, sealAccept } from '../http/frame-handshake';
import { securePage, type PagePolicy } from '../http/security-headers';
import { challengeBootstrapPage } from '../pages/challenge';
import {
  answeredPage,
  challengeErrorPage,
  escapeHtml,
  framePage,
  launcherPage,
  localeOf,
  notFoundFramePage,
  type ChallengeProblem,
  type Locale,
} from '../pages/html';
import { challengeLauncherUrl, challengeSecretMatches } from '../payments/challenge-secret';
import {
  acceptChallengeReturn,
  cancelChallenge,
  completeChallenge,
  pay,
  type StepAnswer,
} from '../payments/service';
import { authenticateClientSecret, publicSession, refreshSession } from '../sessions/service';
import { findChallenge, findSession, setFrameAccept, type SessionRow } from '../sessions/store';
import { frameData } from '../pages/frame-data';
import { buildManifestReader } from '../../lib/build-manifest';
import { join } from 'node:path';
import { z } from 'zod';

/** The frame manifest's `boot`: an inline script and the CSP source (`'sha256-…'`) allowing it. */
const FrameBootSchema = z.object({
  code: z.string().refine((code) => !/<\/script/i.test(code)),
  hash: z.string().regex(/^'sha256-[A-Za-z0-9+/]+={0,2}'$/),
});

/** Why the TermUrl refused an ACS answer, by the status `acceptChallengeReturn` gave. */
const RETURN_PROBLEMS: Record<400 | 403 | 404 | 409 | 410, ChallengeProblem> = {
  400: 'challengeIncomplete',
  403: 'challengeMismatch',
  404: 'challengeUnknown',
  409: 'challengeAnsweredTwice',
  410: 'challengeExpired',
};

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
    setResponseHeader(c, 'Cache-Control', 'no-store');
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
    c.set('session', await adoptHandshake(ctx, c, session));
    await next();
  };
}

/** Stores the frame page's sealed Accept header when the frame sends it with its secret. */
async function adoptHandshake(
  ctx: BffContext,
  c: Context<BffEnv>,
  session: SessionRow,
): Promise<SessionRow> {
  const seal = c.req.header(HANDSHAKE_HEADER);
  if (!seal) return session;
  const opened = openAccept(handshakeKey(ctx.config.merchantSecret), seal, session.id);
  if (!opened || opened.accept === session.frame_accept) return session;
  if (opened.sessionId !== session.id) {
    // A frame renewed in place keeps the page it was served for an earlier session: taken
    // when that session was for the same merchant page.
    const sealedFor = await findSession(ctx.db, opened.sessionId);
    if (sealedFor?.origin !== session.origin) return session;
  }
  const { accept } = opened;
  await setFrameAccept(ctx.db, session.id, accept);
  return { ...session, frame_accept: accept };
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
  work: (keeper?: AnswerKeeper) => Promise<StepAnswer>,
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
    {
      sessionId: c.get('session').id,
      scope,
      key,
      body,
      at: ctx.clock.now(),
      storedAs: withoutChallengeSecret,
    },
    async (keeper) => toStored(await work(keeper)),
  );
  if (out.kind === 'conflict') return c.json(out.items, out.status);
  if (out.kind === 'replay') {
    c.header('Idempotent-Replayed', 'true');
    return c.json(withChallengeSecret(ctx, out.answer.body), out.answer.status as 200);
  }
  return c.json(out.answer.body, out.answer.status as 200);
}

/**
 * A challenge answer as kept under its key: the launcher URL without its fragment, the
 * per-challenge secret (which the BFF stores only hashed; challenge-secret.ts).
 */
function withoutChallengeSecret(body: unknown): unknown {
  const b = body as { status?: unknown; challengeUrl?: unknown } | null;
  if (b?.status !== 'challenge' || typeof b.challengeUrl !== 'string') return body;
  return { ...b, challengeUrl: b.challengeUrl.split('#')[0] };
}

/** A kept challenge answer replayed: its secret derived again from the challenge id. */
function withChallengeSecret(ctx: BffContext, body: unknown): unknown {
  const b = body as { status?: unknown; challengeId?: unknown } | null;
  if (b?.status !== 'challenge' || typeof b.challengeId !== 'string') return body;
  return { ...b, challengeUrl: challengeLauncherUrl(ctx.config, b.challengeId) };
}

/** `/checkout/api/*`: what the frame calls, with the client secret. */
export function checkoutApiRoutes(ctx: BffContext): Hono<BffEnv> {
  const payLimit = rateLimit({
    limits: ctx.rateLimits,
    scope: 'pay',
    limit: ctx.config.payRateLimitPerMinute,
    windowMs: MS.minute,
    clock: ctx.clock,
    clientAddress: ctx.clientAddress,
    what: 'payment attempts',
  });
  // The bank steps write too (an idempotency row each, kept a day): limited like pay, with
  // room for the steps of each attempt (complete, cancel, and their retries).
  const stepLimit = rateLimit({
    limits: ctx.rateLimits,
    scope: 'challenge-step',
    limit: 3 * ctx.config.payRateLimitPerMinute,
    windowMs: MS.minute,
    clock: ctx.clock,
    clientAddress: ctx.clientAddress,
    what: 'bank steps',
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
        return c.json({ key: await ctx.publicKey.get() });
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
      return idempotent(ctx, c, 'pay', true, body.data, (keeper) => {
        // The outcome's transaction stores the answer under the key (one commit fewer).
        const payCtx: BffContext = keeper
          ? {
              ...ctx,
              keepAnswer: (db: BffKysely, result: PayResult) => {
                c.set('ownOutcome', true);
                return keeper.keep(db, { status: 200, body: result });
              },
            }
          : ctx;
        return pay(payCtx, c.get('session'), body.data, facts, c.get('log'));
      });
    })
    .post('/challenge/complete', stepLimit, async (c) => {
      const body = await parseJsonBody(c, ChallengeCompleteBodySchema);
      if (!body.ok) return body.response;
      return idempotent(ctx, c, 'complete', false, body.data, () =>
        completeChallenge(ctx, c.get('session'), body.data, c.get('log')),
      );
    })
    .post('/challenge/cancel', stepLimit, async (c) => {
      const body = await parseJsonBody(c, ChallengeCancelBodySchema);
      if (!body.ok) return body.response;
      const answer = await cancelChallenge(ctx, c.get('session'), body.data);
      const a = toStored(answer);
      return c.json(a.body, a.status as 200);
    });
}

/** The fields of a form post (urlencoded or multipart); undefined for anything else or a malformed body. */
async function formFields(c: Context<BffEnv>): Promise<Record<string, unknown> | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  try {
    return await c.req.parseBody();
  } catch {
    return undefined;
  }
}

const text = (form: Record<string, unknown>, name: string) => {
  const v = form[name];
  return typeof v === 'string' ? v : undefined;
};

/** `/checkout/frame` and the challenge pages (browsers and the ACS; no secrets in URLs). */
export function checkoutPageRoutes(ctx: BffContext): Hono<BffEnv> {
  const publicUrl = ctx.config.publicUrl;
  const frameManifest = buildManifestReader(join(ctx.config.staticDir, 'frame', 'manifest.json'));
  const frameScript = () => {
    const m = frameManifest();
    return m
      ? { src: `/frame/${encodeURIComponent(m.hashedFile)}`, integrity: m.integrity }
      : { src: '/frame/card-form.js' };
  };
  /** The boot script the frame page inlines, with the CSP source of its hash (vite.config.ts). */
  const frameBoot = () => FrameBootSchema.safeParse(frameManifest()?.boot).data;
  const sealKey = handshakeKey(ctx.config.merchantSecret);
  const page = (
    c: Context<BffEnv>,
    policy: PagePolicy,
    status: ContentfulStatusCode,
    html: (nonce: string) => string,
  ) => securePage(c, publicUrl, policy, (n) => c.html(html(n), status));
  const ended = (
    c: Context<BffEnv>,
    locale: Locale,
    origin: string,
    problem: ChallengeProblem,
    status: 404 | 403 | 409 | 410 | 400 | 415,
  ) => page(c, { frameAncestors: [origin] }, status, () => challengeErrorPage(locale, problem));

  /** The pending challenge of `:id` with its session, or the page that says why not. */
  async function pendingChallenge(c: Context<BffEnv>, locale: Locale) {
    const ch = await findChallenge(ctx.db, c.req.param('id') ?? '');
    const session = ch ? await findSession(ctx.db, ch.session_id) : undefined;
    if (!ch || !session) {
      return { response: await ended(c, locale, "'none'", 'challengeUnknown', 404) };
    }
    if (ch.status !== 'pending' || ctx.clock.now().getTime() >= Date.parse(ch.expires_at)) {
      return {
        response: await ended(c, locale, session.origin, 'challengeEnded', 410),
      };
    }
    return { ch, session };
  }

  return (
    new Hono<BffEnv>()
      // The page carries the boot and the form's data (texts, styles, brands; ≈ 13 KB): gzip makes
      // it ≈ 5 KB, the one thing a returning shopper downloads again (per session, never cached).
      // Gzipped whole, not streamed: the markup arrives in one piece (compress-page.ts).
      .get('/frame', compressPage(), async (c) => {
        const locale = localeOf(c.req.query('locale'));
        const id = c.req.query('session') ?? '';
        const row = id.length <= 64 ? await findSession(ctx.db, id) : undefined;
        if (!row) {
          // Any merchant may frame this answer: it says only that the session does not exist.
          return page(c, { frameAncestors: ['*'] }, 404, () => notFoundFramePage(locale));
        }
        // The Accept header is sealed into the page, stored only when the frame sends it back
        // with the client secret (frame-handshake.ts): a bare GET cannot overwrite it.
        const handshake = sealAccept(sealKey, row.id, c.req.header('accept') ?? '*/*');
        const boot = frameBoot();
        const policy = {
          frameAncestors: [row.origin],
          selfAssets: true,
          payment: true,
          scriptHashes: boot ? [boot.hash] : [],
        };
        return page(c, policy, 200, () =>
          framePage({
            sessionId: row.id,
            origin: row.origin,
            locale,
            data: frameData(locale),
            script: frameScript(),
            ...(boot ? { boot: boot.code } : {}),
          }).replace(
            '<title>',
            `<meta name="checkout-handshake" content="${escapeHtml(handshake)}">\n<title>`,
          ),
        );
      })
      .get('/challenge/:id', async (c) => {
        const locale = localeOf(c.req.query('locale'));
        const found = await pendingChallenge(c, locale);
        if ('response' in found) return found.response;
        // No MD or PaReq here: the secret in the fragment is posted back by the page itself.
        const search = new URL(c.req.url).search;
        return page(
          c,
          { frameAncestors: [found.session.origin], script: true, formAction: ["'self'"] },
          200,
          (nonce) =>
            challengeBootstrapPage({
              action: `/checkout/challenge/${found.ch.id}${search}`,
              nonce,
              locale,
            }),
        );
      })
      .post('/challenge/:id', async (c) => {
        const locale = localeOf(c.req.query('locale'));
        const found = await pendingChallenge(c, locale);
        if ('response' in found) return found.response;
        const { ch, session } = found;
        const form = await formFields(c);
        const secret = form ? text(form, 'MD') : undefined;
        if (!challengeSecretMatches(secret, ch.md)) {
          c.get('log').warn({ challengeId: ch.id }, 'challenge launcher refused: wrong secret');
          return ended(c, locale, session.origin, 'challengeMismatch', 403);
        }
        // The TermUrl page speaks the launcher's language: the locale rides along in its query.
        const termUrl = new URL(`${publicUrl}/checkout/challenge/${ch.id}/return`);
        if (c.req.query('locale') !== undefined) termUrl.searchParams.set('locale', locale);
        return page(
          c,
          {
            frameAncestors: [session.origin],
            script: true,
            formAction: [new URL(ch.acs_url).origin],
            payment: true,
          },
          200,
          (nonce) =>
            launcherPage({
              acsUrl: ch.acs_url,
              pareq: ch.pareq,
              md: secret!,
              termUrl: termUrl.href,
              nonce,
              locale,
            }),
        );
      })
      .post('/challenge/:id/return', async (c) => {
        const locale = localeOf(c.req.query('locale'));
        const type = c.req.header('content-type') ?? '';
        if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
          return page(c, { frameAncestors: ["'none'"] }, 415, () =>
            challengeErrorPage(locale, 'formExpected'),
          );
        }
        const form = await formFields(c);
        if (!form) {
          return page(c, { frameAncestors: ["'none'"] }, 400, () =>
            challengeErrorPage(locale, 'challengeIncomplete'),
          );
        }
        const out = await acceptChallengeReturn(ctx, c.req.param('id'), {
          pares: text(form, 'PaRes'),
          md: text(form, 'MD'),
        });
        if (!out.ok) {
          c.get('log').warn(
            { challengeId: c.req.param('id'), status: out.status },
            'challenge answer refused',
          );
          return page(c, { frameAncestors: [out.origin ?? "'none'"] }, out.status, () =>
            challengeErrorPage(locale, RETURN_PROBLEMS[out.status]),
          );
        }
        c.get('log').info(
          { sessionId: out.challenge.session_id, challengeId: out.challenge.id },
          'challenge answered',
        );
        return page(c, { frameAncestors: [out.origin], script: true }, 200, (nonce) =>
          answeredPage({
            challengeId: out.challenge.id,
            targetOrigin: out.origin,
            nonce,
            locale,
          }),
        );
      })
  );
}
