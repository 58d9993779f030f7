import { html } from 'hono/html';
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

import { CHECKOUT_PAGE_SCRIPT_PATH } from './checkout-page-script';
import { layout, type Html } from './layout';
import { productArt } from './product-art';
import type { Fulfilment } from './fulfilment';

export { layout };

/** A page section another part of the project may add to the console (e.g. subscriptions). */
export interface ConsoleSection {
  id: string;
  title: string;
  render(): Promise<Html> | Html;
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
              ${productArt(p.id)}
              <div class="body">
                <h2>${p.name}</h2>
                <p>${p.description}</p>
                <div class="price">${formatBrl(p.price)}</div>
                <form method="post" action="/cart/items">
                  <input type="hidden" name="productId" value="${p.id}" />
                  <button type="submit">
                    Adicionar<span class="visually-hidden"> ${p.name}</span> ao carrinho
                  </button>
                </form>
              </div>
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
    <div class="table-wrap">
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
    </div>
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
 * This page only learns outcomes and then asks its own server, which asks the BFF. The frame
 * shows its own errors (one message per failure): this page does not repeat them.
 */
export function checkoutPage(opts: {
  lines: CartLine[];
  total: number;
  sessionId: string;
  clientSecret: string;
  bffPublicUrl: string;
  /** A way back (the cart); none on pages with nothing to go back to (a subscription). */
  backHref?: string;
  /** Where the page asks for a new session of its own when this one expires (a POST). */
  renewHref: string;
}): Html {
  return html`<h1>Pagamento</h1>
    <div class="checkout">
      <section class="summary" aria-labelledby="resumo">
        <h2 id="resumo">Resumo do pedido</h2>
        <ul>
          ${opts.lines.map(
            (l) =>
              html`<li>
                <span>${l.quantity} × ${l.product.name}</span>
                <span>${formatBrl(l.subtotal)}</span>
              </li>`,
          )}
        </ul>
        <p class="total">
          Total: <span data-testid="checkout-total">${formatBrl(opts.total)}</span>
        </p>
        ${opts.backHref ? html`<p><a href="${opts.backHref}">Voltar ao carrinho</a></p>` : ''}
      </section>
      <section class="pay" aria-labelledby="cartao">
        <h2 id="cartao">Cartão</h2>
        <card-checkout
          endpoint="${opts.bffPublicUrl}"
          session="${opts.clientSecret}"
          locale="pt-BR"
          data-session-id="${opts.sessionId}"
          data-renew="${opts.renewHref}"
        ></card-checkout>
        <div
          id="checkout-status"
          role="status"
          aria-live="polite"
          data-testid="checkout-status"
        ></div>
      </section>
    </div>
    <script type="module" src="${CHECKOUT_PAGE_SCRIPT_PATH}"></script>`;
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

const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  elo: 'Elo',
  hipercard: 'Hipercard',
};

function cardLabel(a: MerchantAttempt): string {
  const brand = a.brand ? (BRAND_NAMES[a.brand] ?? a.brand) : 'Cartão';
  return a.last4 ? `${brand} final ${a.last4}` : brand;
}

export function orderPage(
  session: MerchantSession,
  lines?: CartLine[],
  fulfilment?: Fulfilment,
): Html {
  const paid = session.status === 'succeeded';
  const attempt = succeededAttempt(session);
  return html`<h1>Pedido</h1>
    ${
      paid
        ? html`<p data-testid="order-fulfilment" data-fulfilled="${fulfilment ? 'true' : 'false'}">
            ${
              fulfilment
                ? 'Pedido confirmado pela loja e em separação.'
                : 'A loja está registrando seu pedido…'
            }
          </p>`
        : ''
    }
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
    ${
      lines && lines.length > 0
        ? html`<h2>Itens</h2>
            <ul data-testid="order-items">
              ${lines.map(
                (l) =>
                  html`<li data-testid="order-item" data-product-id="${l.product.id}">
                    ${l.quantity} × ${l.product.name} — ${formatBrl(l.subtotal)}
                  </li>`,
              )}
            </ul>`
        : ''
    }
    <dl>
      <dt>Pedido</dt>
      <dd><code>${session.id}</code></dd>
      <dt>Valor</dt>
      <dd data-testid="order-amount">${money(session.amount)}</dd>
      ${
        attempt
          ? html`<dt>Cartão</dt>
              <dd data-testid="order-card">${cardLabel(attempt)}</dd>
              <dt>Forma</dt>
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
              <dd>
                <code data-testid="order-authorization">${attempt.authorizationCode ?? '—'}</code>
              </dd>
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
          : html`<div class="table-wrap">
              <table data-testid="sessions">
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
                                            ? html` · autorização
                                                <code>${a.authorizationCode}</code>`
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
              </table>
            </div>`
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
