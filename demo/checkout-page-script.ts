/**
 * The checkout page's own script, served as a file (`CHECKOUT_PAGE_SCRIPT_PATH`): the page runs
 * no inline script, so its Content Security Policy allows scripts from its own origin and the
 * BFF's only (README "Content Security Policy").
 */
export const CHECKOUT_PAGE_SCRIPT_PATH = '/checkout-page.js';

export const CHECKOUT_PAGE_SCRIPT = `// Outcomes and their messages live in the widget (one place, worded once): this page
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
  document.getElementById('checkout-status').textContent =
    'Pagamento aprovado. Abrindo o pedido…';
  // The order page asks the BFF for the real status; this event is only a signal.
  location.assign('/order/' + encodeURIComponent(checkout.dataset.sessionId));
});
checkout.addEventListener('checkout-failed', async (event) => {
  leaving(false);
  if (event.code !== 'session_expired') return;
  // A new session for what this page sells (the cart, a plan); the widget keeps what was typed.
  const res = await fetch(checkout.dataset.renew, { method: 'POST' });
  if (!res.ok) return;
  const renewed = await res.json();
  checkout.dataset.sessionId = renewed.sessionId;
  checkout.session = renewed.clientSecret;
});
`;
