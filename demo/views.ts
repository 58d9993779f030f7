import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { CartLine } from './cart';
import { MAX_QUANTITY } from './cart';
import { formatBrl, type Product } from './catalog';
import type { MerchantAttempt, MerchantSession } from './merchant-client';
import { installmentOptions } from '../widget/card/money';
import { installmentText } from '../widget/frame/installments';
import { messagesFor } from '../widget/i18n';

/** The installment plan in the words the card form used: `3x de R$ 16,63 sem juros (…)`. */
function planText(amount: number, count: number): string {
  const option = installmentOptions(amount, count)[count - 1];
  return option ? installmentText(messagesFor('pt-BR'), option, amount) : `${count}x`;
}

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A page section another part of the project may add to the console (e.g. subscriptions). */
export interface ConsoleSection {
  id: string;
  title: string;
  render(): Promise<Html> | Html;
}

const STYLES = `
:root { color-scheme: light; --accent: #0b5394; --ink: #1b1b1b; --muted: #4a4a4a; --line: #c9c9c9;
  --ok: #1d6b2f; --bad: #a31515; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.5; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
header { border-bottom: 1px solid var(--line); }
header nav, main, footer { max-width: 60rem; margin: 0 auto; padding: 1rem; }
header nav ul { display: flex; gap: 1.5rem; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
header nav a { font-weight: 600; }
.products { list-style: none; padding: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); }
.products article { border: 1px solid var(--line); border-radius: .5rem; padding: 1rem; height: 100%; display: flex; flex-direction: column; }
.products h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
.products p { color: var(--muted); flex: 1; }
.price { font-size: 1.2rem; font-weight: 700; color: var(--ink); }
button, .button { font: inherit; background: var(--accent); color: #fff; border: 0; border-radius: .375rem;
  padding: .5rem 1rem; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); border: 1px solid var(--accent); }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; }
input[type=number] { width: 4.5rem; font: inherit; padding: .25rem; }
form.inline { display: inline-flex; gap: .5rem; align-items: center; margin: 0; }
.total { font-size: 1.25rem; font-weight: 700; }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: #eef4fa; }
.error { border-left: 4px solid var(--bad); padding: .5rem 1rem; background: #fdeeee; color: #7a1010; }
.ok { color: var(--ok); }
.bad { color: var(--bad); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
card-checkout { display: block; max-width: 32rem; margin: 1rem 0; }
code { font-size: .9em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
`;

export function layout(opts: { title: string; cartCount: number; body: Html; head?: Html }): Html {
  return html`<!doctype html>
    <html lang="pt-BR">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · Loja Exemplo</title>
        <style>
          ${STYLES}
        </style>
        ${opts.head ?? ''}
      </head>
      <body>
        <a class="skip" href="#conteudo">Pular para o conteúdo</a>
        <header>
          <nav aria-label="Principal">
            <ul>
              <li><a href="/">Loja Exemplo</a></li>
              <li>
                <a href="/cart" data-testid="cart-link"
                  >Carrinho (<span data-testid="cart-count">${opts.cartCount}</span>)</a
                >
              </li>
              <li><a href="/assinatura">Assinatura</a></li>
              <li><a href="/console">Console do lojista</a></li>
            </ul>
          </nav>
        </header>
        <main id="conteudo" tabindex="-1">${opts.body}</main>
        <footer>
          <p>
            Loja de demonstração: os pagamentos vão para o sandbox do gateway, nenhum valor é
            cobrado.
          </p>
        </footer>
      </body>
    </html>`;
}

export function productsPage(products: readonly Product[], added?: Product): Html {
  return html`<h1>Produtos</h1>
    ${
      added
        ? html`<p class="notice" role="status">${added.name} foi adicionado ao carrinho.</p>`
        : ''
    }
    <ul class="products">
      ${products.map(
        (p) =>
          html`<li>
            <article data-testid="product" data-product-id="${p.id}">
              <h2>${p.name}</h2>
              <p>${p.description}</p>
              <div class="price">${formatBrl(p.price)}</div>
              <form method="post" action="/cart/items">
                <input type="hidden" name="productId" value="${p.id}" />
                <button type="submit">
                  Adicionar<span class="visually-hidden"> ${p.name}</span> ao carrinho
                </button>
              </form>
            </article>
          </li>`,
      )}
    </ul>`;
}

export function cartPage(lines: CartLine[], total: number, error?: string): Html {
  if (lines.length === 0) {
    return html`<h1>Carrinho</h1>
      <p>Seu carrinho está vazio.</p>
      <p><a href="/">Ver produtos</a></p>`;
  }
  return html`<h1>Carrinho</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <table>
      <caption>
        Itens do carrinho
      </caption>
      <thead>
        <tr>
          <th scope="col">Produto</th>
          <th scope="col">Quantidade</th>
          <th scope="col" class="num">Preço</th>
          <th scope="col" class="num">Subtotal</th>
        </tr>
      </thead>
      <tbody>
        ${lines.map(
          (l) =>
            html`<tr data-testid="cart-line" data-product-id="${l.product.id}">
              <th scope="row">${l.product.name}</th>
              <td>
                <form class="inline" method="post" action="/cart/items/${l.product.id}">
                  <label for="qty-${l.product.id}" class="visually-hidden"
                    >Quantidade de ${l.product.name}</label
                  >
                  <input
                    id="qty-${l.product.id}"
                    name="quantity"
                    type="number"
                    min="0"
                    max="${MAX_QUANTITY}"
                    value="${l.quantity}"
                  />
                  <button type="submit" class="secondary">
                    Atualizar<span class="visually-hidden"> ${l.product.name}</span>
                  </button>
                </form>
              </td>
              <td class="num">${formatBrl(l.product.price)}</td>
              <td class="num">${formatBrl(l.subtotal)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="total">Total: <span data-testid="cart-total">${formatBrl(total)}</span></p>
    <form method="post" action="/checkout">
      <button type="submit" data-testid="go-to-checkout">Finalizar compra</button>
    </form>`;
}

export interface WidgetScript {
  src: string;
  integrity?: string;
}

export function checkoutHead(widget: WidgetScript): Html {
  return html`<script
    type="module"
    src="${widget.src}"
    ${widget.integrity ? html`integrity="${widget.integrity}"` : ''}
    crossorigin="anonymous"
  ></script>`;
}

/**
 * The checkout page: the widget is the only place card data is typed, inside the BFF's frame.
 * This page only learns outcomes and then asks its own server, which asks the BFF.
 */
export function checkoutPage(opts: {
  lines: CartLine[];
  total: number;
  sessionId: string;
  clientSecret: string;
  bffPublicUrl: string;
}): Html {
  return html`<h1>Pagamento</h1>
    <section aria-labelledby="resumo">
      <h2 id="resumo">Resumo do pedido</h2>
      <ul>
        ${opts.lines.map(
          (l) => html`<li>${l.quantity} × ${l.product.name} — ${formatBrl(l.subtotal)}</li>`,
        )}
      </ul>
      <p class="total">Total: <span data-testid="checkout-total">${formatBrl(opts.total)}</span></p>
    </section>
    <section aria-labelledby="cartao">
      <h2 id="cartao">Cartão</h2>
      <card-checkout
        endpoint="${opts.bffPublicUrl}"
        session="${opts.clientSecret}"
        locale="pt-BR"
        data-session-id="${opts.sessionId}"
      ></card-checkout>
      <div
        id="checkout-status"
        role="status"
        aria-live="polite"
        data-testid="checkout-status"
      ></div>
      <p><a href="/cart">Voltar ao carrinho</a></p>
    </section>
    <script type="module">
      // Outcomes and their messages live in the widget (one place, worded once): this page
      // only keeps the shopper from leaving mid-payment and renews an expired session.
      const checkout = document.querySelector('card-checkout');
      const status = document.getElementById('checkout-status');
      const links = () => document.querySelectorAll('a[href], a[data-href]');
      const leaving = (blocked) => {
        for (const a of links()) {
          if (a.classList.contains('skip')) continue;
          if (blocked && a.hasAttribute('href')) {
            a.dataset.href = a.getAttribute('href');
            a.removeAttribute('href');
            a.setAttribute('aria-disabled', 'true');
          } else if (!blocked && a.dataset.href) {
            a.setAttribute('href', a.dataset.href);
            delete a.dataset.href;
            a.removeAttribute('aria-disabled');
          }
        }
      };
      checkout.addEventListener('checkout-submit', () => leaving(true));
      checkout.addEventListener('checkout-succeeded', () => {
        status.textContent = 'Pagamento aprovado. Abrindo o pedido…';
        // The order page asks the BFF for the real status; this event is only a signal.
        location.assign('/order/' + encodeURIComponent(checkout.dataset.sessionId));
      });
      checkout.addEventListener('checkout-failed', async (event) => {
        leaving(false);
        if (event.code !== 'session_expired') return;
        // A new session for this cart; the widget keeps what was typed.
        const res = await fetch('/checkout/renew', { method: 'POST' });
        if (!res.ok) return;
        const renewed = await res.json();
        checkout.dataset.sessionId = renewed.sessionId;
        checkout.session = renewed.clientSecret;
      });
    </script>`;
}

const SESSION_STATUS: Record<string, string> = {
  open: 'Aberta',
  processing: 'Processando',
  challenge: 'Aguardando autenticação',
  pending: 'Confirmando pagamento',
  succeeded: 'Paga',
  failed: 'Falhou',
  expired: 'Expirada',
};

const ATTEMPT_STATUS: Record<string, string> = {
  succeeded: 'Aprovada',
  declined: 'Recusada',
  failed: 'Falhou',
  unknown: 'Indefinida',
  challenge: 'Desafio 3DS',
};

function money(cents: number | null | undefined): string {
  return typeof cents === 'number' ? formatBrl(cents) : '—';
}

function succeededAttempt(session: MerchantSession): MerchantAttempt | undefined {
  return session.attempts?.find((a) => a.status === 'succeeded');
}

export function orderPage(session: MerchantSession): Html {
  const paid = session.status === 'succeeded';
  const attempt = succeededAttempt(session);
  return html`<h1>Pedido</h1>
    <p
      class="${paid ? 'ok' : 'bad'} total"
      data-testid="order-status"
      data-status="${session.status}"
    >
      ${
        paid
          ? 'Pagamento aprovado'
          : session.status === 'pending'
            ? 'Estamos confirmando seu pagamento…'
            : `Pagamento não aprovado (${SESSION_STATUS[session.status] ?? session.status})`
      }
    </p>
    <dl>
      <dt>Sessão</dt>
      <dd><code>${session.id}</code></dd>
      <dt>Valor</dt>
      <dd data-testid="order-amount">${money(session.amount)}</dd>
      ${
        attempt
          ? html`<dt>Forma</dt>
              <dd data-testid="order-method">
                ${attempt.method === 'debit' ? 'Débito' : 'Crédito'}${
                  attempt.installments && attempt.installments > 1
                    ? `, ${planText(attempt.amount ?? session.amount ?? 0, attempt.installments)}`
                    : ''
                }
              </dd>
              <dt>Pagamento</dt>
              <dd><code data-testid="order-payment-id">${attempt.paymentId || '—'}</code></dd>
              <dt>Autorização</dt>
              <dd><code>${attempt.authorizationCode ?? '—'}</code></dd>
              ${
                attempt.firstBilling
                  ? html`<dt>Primeira cobrança</dt>
                      <dd data-testid="order-first-billing">
                        <code>${attempt.firstBilling.id}</code> ·
                        ${attempt.firstBilling.status ?? '—'} ·
                        ${money(attempt.firstBilling.amount)} · NSU
                        <code>${attempt.nsu ?? '—'}</code>
                      </dd>`
                  : ''
              }
              ${
                typeof attempt.subscriptionId === 'string'
                  ? html`<dt>Assinatura</dt>
                      <dd>
                        <code data-testid="order-subscription-id">${attempt.subscriptionId}</code>
                      </dd>`
                  : ''
              }`
          : ''
      }
    </dl>
    <p><a href="/">Continuar comprando</a></p>`;
}

export function notFoundPage(message: string): Html {
  return html`<h1>Não encontrado</h1>
    <p>${message}</p>
    <p><a href="/">Voltar à loja</a></p>`;
}

export function consolePage(opts: {
  sessions: MerchantSession[];
  error?: string;
  sections: { section: ConsoleSection; body: Html }[];
}): Html {
  return html`<h1>Console do lojista</h1>
    <section aria-labelledby="sessoes">
      <h2 id="sessoes">Sessões de pagamento</h2>
      ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      ${
        opts.sessions.length === 0
          ? html`<p data-testid="no-sessions">Nenhuma sessão ainda.</p>`
          : html`<table data-testid="sessions">
              <caption>
                Sessões, tentativas e resultados (mais recentes primeiro)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Sessão</th>
                  <th scope="col">Situação</th>
                  <th scope="col" class="num">Valor</th>
                  <th scope="col">Tentativas</th>
                </tr>
              </thead>
              <tbody>
                ${opts.sessions.map(
                  (s) =>
                    html`<tr data-testid="session-row" data-session-id="${s.id}">
                      <th scope="row"><code>${s.id}</code></th>
                      <td data-testid="session-status" data-status="${s.status}">
                        ${SESSION_STATUS[s.status] ?? s.status}
                      </td>
                      <td class="num">${money(s.amount)}</td>
                      <td>
                        ${
                          s.attempts && s.attempts.length > 0
                            ? html`<ol>
                                ${s.attempts.map(
                                  (a) =>
                                    html`<li data-testid="attempt" data-status="${a.status}">
                                      ${a.method === 'debit' ? 'Débito' : 'Crédito'}:
                                      ${ATTEMPT_STATUS[a.status] ?? a.status}${
                                        a.paymentId
                                          ? html` · pagamento <code>${a.paymentId}</code>`
                                          : ''
                                      }${
                                        a.authorizationCode
                                          ? html` · autorização <code>${a.authorizationCode}</code>`
                                          : ''
                                      }${a.canceledAt ? html` · <span data-testid="attempt-canceled">cancelado</span>` : ''}
                                    </li>`,
                                )}
                              </ol>`
                            : 'nenhuma'
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    ${opts.sections.map(
      ({ section, body }) =>
        html`<section aria-labelledby="${section.id}-title" data-testid="console-${section.id}">
          <h2 id="${section.id}-title">${section.title}</h2>
          ${body}
        </section>`,
    )}`;
}
