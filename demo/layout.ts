import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { FAVICON } from './product-art';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLES = `
:root { color-scheme: light; --accent: #0b5394; --ink: #1b1b1b; --muted: #4a4a4a; --line: #d5d5d5;
  --soft: #f6f7f9; --ok: #1d6b2f; --bad: #a31515;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.5; overflow-wrap: anywhere; }
a { color: var(--accent); }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
header { border-bottom: 1px solid var(--line); background: var(--soft); }
header nav, main, footer { max-width: 64rem; margin: 0 auto; padding: 1rem; }
header nav ul { display: flex; gap: .5rem 1.25rem; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; align-items: center; }
header nav li:first-child { margin-right: auto; }
header nav a { font-weight: 600; text-decoration: none; }
header nav .brand { font-size: 1.15rem; color: var(--ink); }
.count { display: inline-block; min-width: 1.5em; padding: 0 .4em; border-radius: 1em; background: var(--accent); color: #fff; text-align: center; font-size: .85em; }
footer { color: var(--muted); font-size: .9rem; }
.products { list-style: none; padding: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); }
.products article { border: 1px solid var(--line); border-radius: .5rem; overflow: hidden; height: 100%; display: flex; flex-direction: column; }
.products .body { padding: 1rem; display: flex; flex-direction: column; flex: 1; }
.art { display: block; width: 100%; height: auto; aspect-ratio: 100 / 92; }
.products h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
.products p { color: var(--muted); flex: 1; margin: 0 0 .75rem; }
.price { font-size: 1.2rem; font-weight: 700; color: var(--ink); margin: 0 0 .75rem; }
button, .button { font: inherit; background: var(--accent); color: #fff; border: 0; border-radius: .375rem;
  padding: .6rem 1.1rem; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); border: 1px solid var(--accent); padding: .4rem .8rem; }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.table-wrap { overflow-x: auto; }
@media (max-width: 40rem) { main table:not([hidden]) { display: block; overflow-x: auto; } }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
input[type=number] { width: 4rem; font: inherit; padding: .25rem; }
form.inline { display: inline-flex; gap: .5rem; align-items: center; margin: 0; flex-wrap: wrap; }
.total { font-size: 1.25rem; font-weight: 700; }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: #eef4fa; }
.error { border-left: 4px solid var(--bad); padding: .5rem 1rem; background: #fdeeee; color: #7a1010; }
.ok { color: var(--ok); }
.bad { color: var(--bad); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.checkout { display: grid; gap: 1.5rem; grid-template-columns: minmax(0, 1fr); }
.checkout .summary { background: var(--soft); border: 1px solid var(--line); border-radius: .5rem; padding: 1rem; align-self: start; }
.checkout .summary ul { list-style: none; padding: 0; margin: 0 0 .5rem; }
.checkout .summary li { display: flex; justify-content: space-between; gap: 1rem; padding: .25rem 0; border-bottom: 1px solid var(--line); }
.checkout h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
@media (min-width: 48rem) { .checkout { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
  .checkout .summary { order: 2; } .checkout .pay { order: 1; } }
card-checkout { display: block; max-width: 32rem; margin: 0 0 1rem; }
code { font-size: .9em; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; }
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
        <link rel="icon" href="${FAVICON}" type="image/svg+xml" />
        ${opts.head ?? ''}
        <style>
          ${raw(STYLES)}
        </style>
      </head>
      <body>
        <a class="skip" href="#conteudo">Pular para o conteúdo</a>
        <header>
          <nav aria-label="Principal">
            <ul>
              <li><a class="brand" href="/">Loja Exemplo</a></li>
              <li>
                <a href="/cart" data-testid="cart-link"
                  >Carrinho <span class="count" data-testid="cart-count">${opts.cartCount}</span></a
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
