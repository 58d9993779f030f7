import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { CreateSessionBody } from '../contract/checkout';
import { silentLogger } from '../server/lib/logging';
import { FixedWindowLimiter } from '../server/lib/rate-limit';
import { CartStore, cartCount, cartLines, cartTotal, type Cart } from './cart';
import { PRODUCTS, findProduct } from './catalog';
import { CHECKOUT_PAGE_SCRIPT, CHECKOUT_PAGE_SCRIPT_PATH } from './checkout-page-script';
import { OrderLines, openCartCheckout } from './checkout-session';
import { createMerchantClient, type MerchantClient } from './merchant-client';
import { notificationsConsole } from './notifications';
import { checkoutEventRoutes, Fulfilments } from './fulfilment';
import { eventsConsole } from './events-console';
import {
  cartPage,
  checkoutHead,
  checkoutPage,
  consolePage,
  layout,
  notFoundPage,
  orderPage,
  productsPage,
  type ConsoleSection,
} from './views';
import { widgetScriptResolver } from './widget-script';

export interface DemoDeps {
  /** The storefront's own origin, as browsers see it; the BFF must allow it. */
  publicUrl: string;
  /** The BFF for server-to-server calls (merchant API). */
  bffUrl: string;
  /** The BFF as browsers reach it (script and frame); defaults to `bffUrl`. */
  bffPublicUrl?: string;
  /**
   * Origins of the card issuers' 3-D Secure pages beyond `https:` (the sandbox's bank on plain
   * HTTP, locally): the pages' Content Security Policy lets the challenge frame reach them.
   */
  issuerOrigins?: string[];
  merchantSecret: string;
  fetch?: typeof fetch;
  /** Where `npm run build` wrote the widget (for the SRI manifest); default `dist`. */
  distDir?: string;
  maxInstallments?: number;
  /**
   * `POST /checkout` (which creates a checkout session at the BFF) allowed per client address
   * per minute; default 20. Without it anyone could create sessions in a loop.
   */
  checkoutRateLimitPerMinute?: number;
  /** Extra console sections (subscriptions, webhooks…) added by other parts of the project. */
  consoleSections?: ConsoleSection[];
  /** Overrides the BFF client, for tests. */
  merchant?: MerchantClient;
  /**
   * The `whsec_…` secret the BFF signs its events with (`BFF_EVENTS_SECRET`): orders are then
   * fulfilled from `checkout_session.succeeded` at `POST /webhooks/checkout-events`.
   */
  eventsSecret?: string;
  logger?: Logger;
}

export interface DemoApp {
  app: Hono;
  carts: CartStore;
  /** The items of the cart a request's cookie names (the header's count on every page). */
  cartCountOf(c: Context): number;
  /** Remembers what an order (a session) contained, for its order page. */
  orders: OrderLines;
  /** The orders fulfilled from the BFF's events. */
  fulfilments: Fulfilments;
}

const CART_COOKIE = 'cart';

/** The socket's peer (the demo runs on loopback, behind no proxy); 'unknown' without one. */
function peerAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The demo storefront: a merchant site that takes payments through the widget. */
export function createDemoApp(deps: DemoDeps): DemoApp {
  const publicUrl = new URL(deps.publicUrl);
  const origin = publicUrl.origin;
  const bffPublicUrl = (deps.bffPublicUrl ?? deps.bffUrl).replace(/\/$/, '');
  const logger = deps.logger ?? silentLogger;
  const merchant =
    deps.merchant ??
    createMerchantClient({
      bffUrl: deps.bffUrl,
      merchantSecret: deps.merchantSecret,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  const notifications = notificationsConsole({
    bffUrl: deps.bffUrl,
    merchantSecret: deps.merchantSecret,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const eventsSection = eventsConsole({
    bffUrl: deps.bffUrl,
    merchantSecret: deps.merchantSecret,
    logger,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const widgetScript = widgetScriptResolver({ bffPublicUrl, distDir: deps.distDir ?? 'dist' });
  const carts = new CartStore();
  const orders = new OrderLines();
  const fulfilments = new Fulfilments();
  let orderNumber = 0;

  const currentCart = (c: Context): Cart | undefined => carts.get(getCookie(c, CART_COOKIE));
  const cartFor = (c: Context): Cart => {
    const existing = currentCart(c);
    if (existing) return existing;
    const cart = carts.create();
    setCookie(c, CART_COOKIE, cart.id, {
      path: '/',
      httpOnly: true,
      sameSite: 'Lax',
      secure: publicUrl.protocol === 'https:',
    });
    return cart;
  };
  const page = (
    c: Context,
    title: string,
    body: Parameters<typeof layout>[0]['body'],
    status: 200 | 404 | 429 | 502 = 200,
    head?: Parameters<typeof layout>[0]['head'],
  ) =>
    c.html(
      layout({ title, cartCount: cartCount(currentCart(c)), body, ...(head ? { head } : {}) }),
      status,
    );

  const app = new Hono();
  if (deps.eventsSecret) {
    app.route(
      '/',
      checkoutEventRoutes({
        secret: deps.eventsSecret,
        fulfilments,
        logger,
        onFulfilled: (f) => carts.clearCheckout(f.sessionId),
      }),
    );
  }

  // The policy the README gives merchants: scripts from this origin and the BFF's (the
  // widget; no inline script), the BFF for the card frame, and the issuers' pages the
  // challenge dialog's frame moves on to (unknown in advance: `https:`).
  const bffOrigin = new URL(bffPublicUrl).origin;
  const frameSources = [bffOrigin, ...(deps.issuerOrigins ?? []), 'https:'];
  const policy = `script-src 'self' ${bffOrigin}; frame-src ${frameSources.join(' ')}`;
  app.use('*', async (c, next) => {
    await next();
    c.header('content-security-policy', policy);
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'strict-origin-when-cross-origin');
    c.header('cache-control', 'no-store');
  });

  app.get(CHECKOUT_PAGE_SCRIPT_PATH, (c) => {
    c.header('content-type', 'text/javascript; charset=utf-8');
    return c.body(CHECKOUT_PAGE_SCRIPT);
  });

  app.get('/', (c) => {
    const added = findProduct(c.req.query('added') ?? '');
    return page(c, 'Produtos', productsPage(PRODUCTS, added));
  });

  app.post('/cart/items', async (c) => {
    const form = await c.req.parseBody();
    const productId = typeof form.productId === 'string' ? form.productId : '';
    if (!findProduct(productId))
      return page(c, 'Não encontrado', notFoundPage('Produto desconhecido.'), 404);
    carts.add(cartFor(c), productId);
    return c.redirect(`/?added=${encodeURIComponent(productId)}`, 303);
  });

  app.post('/cart/items/:productId', async (c) => {
    const form = await c.req.parseBody();
    const quantity = Number(typeof form.quantity === 'string' ? form.quantity : NaN);
    const cart = cartFor(c);
    if (
      !Number.isFinite(quantity) ||
      !carts.setQuantity(cart, c.req.param('productId'), quantity)
    ) {
      return page(
        c,
        'Carrinho',
        cartPage(cartLines(cart), cartTotal(cart), 'Quantidade inválida.'),
      );
    }
    return c.redirect('/cart', 303);
  });

  app.get('/cart', (c) => {
    const cart = currentCart(c);
    return page(c, 'Carrinho', cartPage(cartLines(cart), cartTotal(cart)));
  });

  /** A checkout session for the cart's amount (the amount comes from the catalog only). */
  const checkoutBody = (amount: number): CreateSessionBody => {
    orderNumber += 1;
    return {
      amount,
      origin,
      methods: ['credit', 'debit'],
      maxInstallments: deps.maxInstallments ?? 6,
      referenceTransaction: `demo-${Date.now().toString(36)}-${orderNumber}`,
    };
  };

  // The amount comes from the server's catalog only: whatever the browser posts is ignored.
  const checkoutLimit = new FixedWindowLimiter({
    limit: deps.checkoutRateLimitPerMinute ?? 20,
    windowMs: 60_000,
  });
  app.post('/checkout', async (c) => {
    const verdict = checkoutLimit.hit(peerAddress(c), Date.now());
    if (!verdict.ok) {
      c.header('Retry-After', String(verdict.retryAfterSeconds));
      const limited = currentCart(c);
      return page(
        c,
        'Carrinho',
        cartPage(
          cartLines(limited),
          cartTotal(limited),
          'Muitas tentativas de pagamento. Aguarde um minuto e tente de novo.',
        ),
        429,
      );
    }
    const cart = currentCart(c);
    const total = cartTotal(cart);
    if (!cart || total === 0) return c.redirect('/cart', 303);
    const lines = cartLines(cart);
    const opened = await openCartCheckout(merchant, cart, () => checkoutBody(total));
    if (opened.kind === 'paid') {
      // Paid in another tab meanwhile: the order page empties the cart.
      return c.redirect(`/order/${encodeURIComponent(opened.sessionId)}`, 303);
    }
    // Changed in another tab meanwhile: the shopper sees the cart as it is now.
    if (opened.kind === 'changed') return c.redirect('/cart', 303);
    if (opened.kind === 'error') {
      logger.error({ status: opened.status }, 'checkout session not created');
      return page(
        c,
        'Carrinho',
        cartPage(
          lines,
          total,
          'Não foi possível iniciar o pagamento agora. Tente de novo em instantes.',
        ),
        502,
      );
    }
    orders.set(opened.checkout.sessionId, lines);
    return c.redirect('/checkout', 303);
  });

  // The checkout page's session expired: a new one for the same cart, so the widget goes on
  // with what the shopper typed (it renews in place). Same-origin fetches only.
  app.post('/checkout/renew', async (c) => {
    if (c.req.header('origin') !== origin) return c.json({ error: 'origin' }, 403);
    const cart = currentCart(c);
    if (!cart?.checkout || cartTotal(cart) === 0) return c.json({ error: 'cart' }, 409);
    // The expired session has ended: the cart gets its one new session (or, paid meanwhile in
    // another tab, the frame learns it from the old one).
    const total = cartTotal(cart);
    const opened = await openCartCheckout(merchant, cart, () => checkoutBody(total));
    if (opened.kind === 'paid') return c.json({ error: 'paid' }, 409);
    // Its session was made for the cart before it changed: never handed to a tab.
    if (opened.kind === 'changed') return c.json({ error: 'cart' }, 409);
    if (opened.kind === 'error') return c.json({ error: 'unavailable' }, 502);
    orders.set(opened.checkout.sessionId, cartLines(cart));
    return c.json({
      sessionId: opened.checkout.sessionId,
      clientSecret: opened.checkout.clientSecret,
    });
  });

  app.get('/checkout', (c) => {
    const cart = currentCart(c);
    if (!cart?.checkout || cart.checkout.amount !== cartTotal(cart))
      return c.redirect('/cart', 303);
    return page(
      c,
      'Pagamento',
      checkoutPage({
        lines: cartLines(cart),
        total: cart.checkout.amount,
        sessionId: cart.checkout.sessionId,
        clientSecret: cart.checkout.clientSecret,
        bffPublicUrl,
        backHref: '/cart',
        renewHref: '/checkout/renew',
      }),
      200,
      checkoutHead(widgetScript()),
    );
  });

  // Never trusts the browser: the status comes from the BFF, server to server.
  app.get('/order/:sessionId', async (c) => {
    const id = c.req.param('sessionId');
    const found = await merchant.getSession(id);
    if (!found.ok) {
      return found.status === 404
        ? page(c, 'Pedido', notFoundPage('Pedido não encontrado.'), 404)
        : page(c, 'Pedido', notFoundPage('Não foi possível consultar o pedido agora.'), 502);
    }
    const cart = currentCart(c);
    if (found.value.status === 'succeeded' && cart?.checkout?.sessionId === id) carts.clear(cart);
    return page(c, 'Pedido', orderPage(found.value, orders.get(id), fulfilments.get(id)));
  });

  app.get('/console', async (c) => {
    // The list has no attempts: read each session's detail (the 20 most recent).
    const listed = await merchant.listSessions();
    const sessions = listed.ok
      ? await Promise.all(
          listed.value.slice(0, 20).map(async (s) => {
            const detail = await merchant.getSession(s.id);
            return detail.ok ? detail.value : s;
          }),
        )
      : [];
    const sections = await Promise.all(
      [...(deps.consoleSections ?? []), eventsSection, notifications.section].map(
        async (section) => ({
          section,
          body: await section.render(),
        }),
      ),
    );
    return page(
      c,
      'Console',
      consolePage({
        sessions,
        ...(listed.ok ? {} : { error: 'Não foi possível listar as sessões do BFF.' }),
        sections,
      }),
    );
  });

  app.route('/console', notifications.routes);

  app.get('/healthz', (c) => c.json({ ok: true }));

  app.notFound((c) => page(c, 'Não encontrado', notFoundPage('Página não encontrada.'), 404));
  app.onError((err, c) => {
    logger.error(
      { err: { message: err.message, stack: err.stack }, path: c.req.path },
      'unhandled',
    );
    return c.text('Erro interno', 500);
  });

  return { app, carts, orders, fulfilments, cartCountOf: (c) => cartCount(currentCart(c)) };
}
