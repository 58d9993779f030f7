import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { randomBytes, randomUUID } from 'node:crypto';
import { html } from 'hono/html';
import { z } from 'zod';
import type { Logger } from 'pino';
import type { CreateSessionBody } from '../contract/checkout';
import { silentLogger } from '../server/lib/logging';
import { formatBrl } from './catalog';
import type { CartCheckout, CartLine } from './cart';
import { checkoutState } from './checkout-session';
import { createMerchantClient, refusedForGood } from './merchant-client';
import { checkoutHead, checkoutPage, layout, type ConsoleSection } from './views';
import { widgetScriptResolver } from './widget-script';

/** The storefront's monthly plan (DESIGN §5: Monthly = every 30 days). */
export const DEMO_PLAN = {
  name: 'Clube do Café — mensal',
  description: 'Um pacote de 250 g de café especial torrado na semana, todo mês.',
  /** Reais, as the gateway's plan takes it. */
  amount: 39.9,
  planType: 'Monthly',
  intervalDays: 30,
} as const;

/** The part of the gateway client (server/gateway/client.ts) that finds or creates the plan. */
export interface PlanGateway {
  searchPlans(query: {
    name?: string;
    status?: 'Active';
    limit?: number;
  }): Promise<{ items: { id: string; name: string; status: string }[] }>;
  createPlan(body: {
    name: string;
    description: string;
    amount: number;
    planType: 'Monthly';
    paymentMethod: 'CreditCard';
  }): Promise<string>;
}

/** The demo plan's id: the Active plan of that name, created when there is none. */
export async function ensureDemoPlan(gateway: PlanGateway): Promise<string> {
  const found = await gateway.searchPlans({ name: DEMO_PLAN.name, status: 'Active', limit: 10 });
  const same = found.items.find((p) => p.name === DEMO_PLAN.name && p.status === 'Active');
  if (same) return same.id;
  return gateway.createPlan({
    name: DEMO_PLAN.name,
    description: DEMO_PLAN.description,
    amount: DEMO_PLAN.amount,
    planType: DEMO_PLAN.planType,
    paymentMethod: 'CreditCard',
  });
}

const BillingSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  amount: z.number(),
  installment: z.number(),
  expireAt: z.string(),
});
const SubscriptionSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  sessionId: z.string().nullish(),
  plan: z.looseObject({ name: z.string(), amount: z.number() }),
  billings: z.array(BillingSchema),
});
type ConsoleSubscription = z.infer<typeof SubscriptionSchema>;
const ListSchema = z.object({ data: z.array(SubscriptionSchema), hasMore: z.boolean() });

const SUBSCRIPTION_STATUS: Record<string, string> = {
  Active: 'Ativa',
  Canceled: 'Cancelada',
  Blocked: 'Bloqueada',
};
const BILLING_STATUS: Record<string, string> = {
  Opened: 'Em aberto',
  Paid: 'Paga',
  Denied: 'Recusada',
  PaymentInvalid: 'Pagamento inválido',
  Canceled: 'Cancelada',
};

const SUBSCRIPTION_COOKIE = 'subscription';
/** The browser ids the storefront mints (18 random bytes, base64url). */
const BROWSER_ID = /^[A-Za-z0-9_-]{24}$/;

/** A browser's plan checkout, and the creation of its next one while it runs or failed. */
interface PlanBrowser {
  checkout?: CartCheckout;
  creating?: {
    key: string;
    body?: CreateSessionBody | undefined;
    promise?: Promise<CartCheckout | 'error'>;
  };
}

/** The plan as an order line (its first billing's amount, in cents). */
const planLine = (cents: number): CartLine => ({
  quantity: 1,
  product: {
    id: 'clube-do-cafe',
    name: DEMO_PLAN.name,
    description: DEMO_PLAN.description,
    price: cents,
  },
  subtotal: cents,
});

/** `2026-01-02T10:00:00.000-03:00` → `2026-01-02`. */
const day = (iso: string): string => iso.slice(0, 10);

function subscriptionsTable(items: ConsoleSubscription[]) {
  if (items.length === 0)
    return html`<p data-testid="no-subscriptions">Nenhuma assinatura ainda.</p>`;
  return html`<table data-testid="subscriptions">
    <caption>
      Assinaturas e suas cobranças (mais recentes primeiro)
    </caption>
    <thead>
      <tr>
        <th scope="col">Assinatura</th>
        <th scope="col">Plano</th>
        <th scope="col">Situação</th>
        <th scope="col">Cobranças</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (s) =>
          html`<tr data-testid="subscription-row" data-subscription-id="${s.id}">
            <th scope="row"><code>${s.id}</code></th>
            <td>${s.plan.name} · ${formatBrl(s.plan.amount)}</td>
            <td data-testid="subscription-status" data-status="${s.status}">
              ${SUBSCRIPTION_STATUS[s.status] ?? s.status}
            </td>
            <td>
              ${
                s.billings.length === 0
                  ? 'nenhuma'
                  : html`<ol>
                      ${s.billings.map(
                        (b) =>
                          html`<li data-testid="billing" data-status="${b.status}">
                            ${b.installment}ª: ${BILLING_STATUS[b.status] ?? b.status} ·
                            ${formatBrl(b.amount)} · ${day(b.expireAt)}
                          </li>`,
                      )}
                    </ol>`
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * The storefront's subscription: `GET /assinatura` shows the plan, its "Assinar" button posts
 * to `POST /assinatura`, which creates a checkout session with the plan id (server to server)
 * and answers the payment page. The console section lists the subscriptions and billings the
 * BFF reads from the gateway (`GET /v1/subscriptions`).
 */
export function subscriptionDemo(opts: {
  /** Resolves the plan id (finds or creates the plan in the gateway). */
  planId: () => Promise<string>;
  publicUrl: string;
  bffUrl: string;
  bffPublicUrl?: string;
  merchantSecret: string;
  distDir?: string;
  fetch?: typeof fetch;
  logger?: Logger;
  /** The header's cart count for a request (the storefront's cart). */
  cartCount?: (c: Context) => number;
  /** Told what each subscription order contains, for its order page. */
  orders?: { set(sessionId: string, lines: CartLine[]): void };
}): { routes: Hono; section: ConsoleSection } {
  const doFetch = opts.fetch ?? fetch;
  const origin = new URL(opts.publicUrl).origin;
  const bffUrl = opts.bffUrl.replace(/\/$/, '');
  const bffPublicUrl = (opts.bffPublicUrl ?? opts.bffUrl).replace(/\/$/, '');
  const logger = opts.logger ?? silentLogger;
  const merchant = createMerchantClient({
    bffUrl,
    merchantSecret: opts.merchantSecret,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const widgetScript = widgetScriptResolver({ bffPublicUrl, distDir: opts.distDir ?? 'dist' });
  const amount = Math.round(DEMO_PLAN.amount * 100);
  let orderNumber = 0;
  const cartCount = opts.cartCount ?? (() => 0);
  // Each browser's plan checkout, by a random id in a cookie set on the plan page itself, so
  // two of its tabs posting "Assinar" together on a first visit name the same browser.
  // Post/Redirect/Get: the payment page is a GET, so Back or a reload never creates a second
  // subscription. Bounded (least recently used out).
  const browsers = new Map<string, PlanBrowser>();
  const cookieId = (c: Context): string | undefined => {
    const id = getCookie(c, SUBSCRIPTION_COOKIE);
    return id && BROWSER_ID.test(id) ? id : undefined;
  };
  /** The browser's id, its cookie set first when it has none yet. */
  const browserId = (c: Context): string => {
    const known = cookieId(c);
    if (known) return known;
    const id = randomBytes(18).toString('base64url');
    setCookie(c, SUBSCRIPTION_COOKIE, id, {
      path: '/assinatura',
      httpOnly: true,
      sameSite: 'Lax',
      secure: new URL(opts.publicUrl).protocol === 'https:',
    });
    return id;
  };
  /** The browser's record (made when it first asks for a plan session). */
  const browserOf = (c: Context): PlanBrowser => {
    const id = browserId(c);
    const browser = browsers.get(id) ?? {};
    browsers.delete(id);
    browsers.set(id, browser);
    while (browsers.size > 10_000) browsers.delete(browsers.keys().next().value!);
    return browser;
  };
  const current = (c: Context): CartCheckout | undefined => {
    const id = cookieId(c);
    return id ? browsers.get(id)?.checkout : undefined;
  };

  const planPage = (c: Context, error?: string) =>
    layout({
      title: 'Assinatura',
      cartCount: cartCount(c),
      body: html`<h1>Assinatura</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <article data-testid="plan">
          <h2>${DEMO_PLAN.name}</h2>
          <p>${DEMO_PLAN.description}</p>
          <p class="price">
            ${formatBrl(amount)} <span>a cada ${DEMO_PLAN.intervalDays} dias</span>
          </p>
          <form method="post" action="/assinatura">
            <button type="submit">Assinar</button>
          </form>
        </article>`,
    });

  /** The body of a new plan session, or undefined when the plan is not available. */
  const planSessionBody = async (): Promise<CreateSessionBody | undefined> => {
    try {
      const planId = await opts.planId();
      orderNumber += 1;
      // The gateway's orderNumber takes at most 10 characters.
      const referenceTransaction = `as${(Date.now() % 1e6).toString(36)}${orderNumber}`;
      return { planId, origin, referenceTransaction: referenceTransaction.slice(0, 10) };
    } catch (err) {
      logger.error({ err: { message: (err as Error).message } }, 'demo plan not available');
      return undefined;
    }
  };

  /**
   * The browser's plan session in place of `replacing` (ended, or none): the one another tab
   * got meanwhile, the one under way for it (two tabs share one creation), or a new one. The
   * creation carries an `Idempotency-Key` kept with its body until it succeeds, so a retry
   * after a lost answer gets the same session from the BFF; the next one (its session ended)
   * gets a new key.
   */
  const newPlanCheckout = async (
    c: Context,
    replacing: CartCheckout | undefined,
  ): Promise<CartCheckout | 'error'> => {
    const browser = browserOf(c);
    if (browser.checkout && browser.checkout !== replacing) return browser.checkout;
    const creating = (browser.creating ??= { key: `demo-plan-${randomUUID()}` });
    creating.promise ??= (async () => {
      creating.body ??= await planSessionBody();
      const created = creating.body && (await merchant.createSession(creating.body, creating.key));
      if (!created?.ok) {
        if (created) logger.error({ status: created.status }, 'subscription session not created');
        // Refused for good (the plan replaced meanwhile, say): the next try starts over, with
        // the plan sold then. Otherwise it sends the same key and body: if the BFF did create
        // it, it answers it.
        if (created && refusedForGood(created.status) && browser.creating === creating) {
          delete browser.creating;
        }
        delete creating.promise;
        return 'error';
      }
      opts.orders?.set(created.value.id, [planLine(created.value.amount)]);
      browser.checkout = {
        sessionId: created.value.id,
        clientSecret: created.value.clientSecret,
        amount: created.value.amount,
      };
      if (browser.creating === creating) delete browser.creating;
      return browser.checkout;
    })();
    return creating.promise;
  };

  const routes = new Hono()
    .get('/assinatura', (c) => {
      browserId(c); // its cookie, before any tab of it posts "Assinar"
      return c.html(planPage(c));
    })
    .post('/assinatura', async (c) => {
      const open = current(c);
      if (open) {
        const state = await checkoutState(merchant, open);
        if (state === 'live') return c.redirect('/assinatura/pagamento', 303);
      }
      if ((await newPlanCheckout(c, open)) === 'error')
        return c.html(planPage(c, 'Não foi possível iniciar a assinatura agora.'), 502);
      return c.redirect('/assinatura/pagamento', 303);
    })
    // The payment page's session expired: a new plan session, so the widget goes on with what
    // the shopper typed (it renews in place). Same-origin fetches only.
    .post('/assinatura/renovar', async (c) => {
      if (c.req.header('origin') !== origin) return c.json({ error: 'origin' }, 403);
      const open = current(c);
      if (!open) return c.json({ error: 'subscription' }, 409);
      const state = await checkoutState(merchant, open);
      // Paid meanwhile (another tab): the frame learns it from the old session.
      if (state === 'paid') return c.json({ error: 'paid' }, 409);
      const checkout = state === 'live' ? open : await newPlanCheckout(c, open);
      if (checkout === 'error') return c.json({ error: 'unavailable' }, 502);
      return c.json({ sessionId: checkout.sessionId, clientSecret: checkout.clientSecret });
    })
    .get('/assinatura/pagamento', async (c) => {
      const checkout = current(c);
      if (!checkout) return c.redirect('/assinatura', 303);
      if ((await checkoutState(merchant, checkout)) === 'paid')
        return c.redirect(`/order/${encodeURIComponent(checkout.sessionId)}`, 303);
      return c.html(
        layout({
          title: 'Pagamento',
          cartCount: cartCount(c),
          head: checkoutHead(widgetScript()),
          body: checkoutPage({
            lines: [planLine(checkout.amount)],
            total: checkout.amount,
            sessionId: checkout.sessionId,
            clientSecret: checkout.clientSecret,
            bffPublicUrl,
            renewHref: '/assinatura/renovar',
          }),
        }),
      );
    });

  const section: ConsoleSection = {
    id: 'assinaturas',
    title: 'Assinaturas',
    async render() {
      try {
        const res = await doFetch(`${bffUrl}/v1/subscriptions?limit=20`, {
          headers: { authorization: `Bearer ${opts.merchantSecret}`, accept: 'application/json' },
          signal: AbortSignal.timeout(10_000),
        });
        const parsed = res.ok ? ListSchema.safeParse(await res.json()) : null;
        if (parsed?.success) return subscriptionsTable(parsed.data.data);
        logger.warn({ status: res.status }, 'subscriptions not listed');
      } catch (err) {
        logger.warn({ err: { message: (err as Error).message } }, 'subscriptions not listed');
      }
      return html`<p class="error" role="alert">Não foi possível listar as assinaturas.</p>`;
    },
  };

  return { routes, section };
}
