import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../context';
import { decodePareq } from './pares';
import {
  MAX_OTP_TRIES,
  SANDBOX_OTP,
  bindTermUrl,
  decided,
  findAuthByRef,
  isExpired,
  submitOtp,
  type AuthRow,
} from './service';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

function formatBrl(cents: number): string {
  const reais = Math.floor(cents / 100).toLocaleString('pt-BR');
  return `R$ ${reais},${String(cents % 100).padStart(2, '0')}`;
}

/** A TermUrl must be an absolute http(s) URL; anything else is refused. */
function validTermUrl(s: string): boolean {
  if (s.length > 2048) return false;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; padding: 1rem; }
  main { max-width: 26rem; margin: 0 auto; }
  h1 { font-size: 1.25rem; margin: 0 0 .75rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
  dt { font-weight: 600; }
  dd { margin: 0; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input { font-size: 1.25rem; padding: .5rem; width: 10rem; letter-spacing: .2em; }
  .hint { color: #555; margin: .25rem 0 1rem; }
  .error { color: #b00020; font-weight: 600; }
  .actions { display: flex; gap: .75rem; }
  button { font-size: 1rem; padding: .6rem 1.2rem; border-radius: .4rem; cursor: pointer; }
  button:focus-visible, input:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
  @media (prefers-color-scheme: dark) { .hint { color: #bbb; } .error { color: #ff8a80; } }
`;

function page(
  c: Context,
  status: 200 | 400 | 410,
  title: string,
  body: string,
  opts: { script?: string; formTarget?: string } = {},
): Response {
  const nonce = randomBytes(16).toString('base64');
  const formAction = opts.formTarget ? `'self' ${new URL(opts.formTarget).origin}` : `'self'`;
  c.header(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      `form-action ${formAction}`,
      "base-uri 'none'",
    ].join('; '),
  );
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  const script = opts.script ? `<script nonce="${nonce}">${opts.script}</script>` : '';
  return c.html(
    `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
${script}
</body>
</html>`,
    status,
  );
}

function errorPage(c: Context, status: 400 | 410, message: string): Response {
  return page(
    c,
    status,
    'Verificação 3-D Secure / 3-D Secure check',
    `<h1>Verificação 3-D Secure / 3-D Secure check</h1><p role="alert" class="error">${escapeHtml(message)}</p>`,
  );
}

function challengePage(c: Context, auth: AuthRow, pareq: string, error?: string): Response {
  const errorHtml = error
    ? `<p id="otp-error" class="error" role="alert">${escapeHtml(error)}</p>`
    : `<p id="otp-error" class="error" role="alert" hidden></p>`;
  return page(
    c,
    200,
    'Verificação 3-D Secure / 3-D Secure check',
    `<h1>Confirme a compra / Confirm your purchase</h1>
<dl>
  <dt>Valor / Amount</dt><dd>${escapeHtml(formatBrl(auth.amount))}</dd>
  <dt>Cartão / Card</dt><dd>•••• ${escapeHtml(auth.last_four)}</dd>
</dl>
<form method="post" action="/acs/challenge/submit">
  <input type="hidden" name="PaReq" value="${escapeHtml(pareq)}">
  <label for="otp">Código de verificação / Verification code</label>
  <input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code"
    maxlength="8" pattern="[0-9]*" aria-describedby="otp-hint otp-error"${error ? ' aria-invalid="true"' : ''} autofocus>
  <p id="otp-hint" class="hint">sandbox OTP: ${SANDBOX_OTP}</p>
  ${errorHtml}
  <div class="actions">
    <button type="submit" name="action" value="submit">Confirmar / Submit</button>
    <button type="submit" name="action" value="cancel" formnovalidate>Cancelar / Cancel</button>
  </div>
</form>`,
    // Browsers ignore autofocus in a cross-origin frame (this page is one, inside the
    // merchant's dialog): focus the code field as an issuer's page does.
    { script: `document.getElementById('otp').focus();` },
  );
}

/** The page that carries the ACS answer to the TermUrl: auto-posted, with a button for no-JS. */
function answerPage(c: Context, termUrl: string, pares: string, md: string): Response {
  return page(
    c,
    200,
    'Verificação 3-D Secure / 3-D Secure check',
    `<h1>Retornando à loja / Returning to the store</h1>
<form id="answer" method="post" action="${escapeHtml(termUrl)}">
  <input type="hidden" name="PaRes" value="${escapeHtml(pares)}">
  <input type="hidden" name="MD" value="${escapeHtml(md)}">
  <button type="submit">Continuar / Continue</button>
</form>`,
    { script: `document.getElementById('answer').submit();`, formTarget: termUrl },
  );
}

function field(form: Record<string, string | File | (string | File)[]>, name: string): string {
  const v = form[name];
  return typeof v === 'string' ? v : '';
}

async function readForm(
  c: Context,
): Promise<Record<string, string | File | (string | File)[]> | null> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return null;
  try {
    return await c.req.parseBody({ all: true });
  } catch {
    return null;
  }
}

/**
 * The ACS simulator (browser pages, no token): `POST /acs/challenge` with the form fields
 * `PaReq`, `MD`, `TermUrl` shows the OTP page; `POST /acs/challenge/submit` decides and posts
 * `PaRes` and `MD` back to the TermUrl.
 */
export function acsPages(ctx: SandboxContext): Hono {
  const load = async (c: Context, pareq: string): Promise<AuthRow | Response> => {
    const ref = decodePareq(pareq);
    const auth = ref ? await findAuthByRef(ctx, ref) : null;
    if (!auth) return errorPage(c, 400, 'PaReq inválido / invalid PaReq');
    if (isExpired(ctx, auth)) {
      return errorPage(c, 410, 'A autenticação expirou / the authentication expired');
    }
    return auth;
  };

  return new Hono()
    .post('/acs/challenge', async (c) => {
      const form = await readForm(c);
      if (!form) return errorPage(c, 400, 'Envie um formulário / post a form (PaReq, MD, TermUrl)');
      const pareq = field(form, 'PaReq');
      const md = field(form, 'MD');
      const termUrl = field(form, 'TermUrl');
      if (!validTermUrl(termUrl)) {
        return errorPage(c, 400, 'TermUrl inválida / TermUrl must be an http(s) URL');
      }
      if (md.length > 1024) return errorPage(c, 400, 'MD longo demais / MD is too long');
      const found = await load(c, pareq);
      if (found instanceof Response) return found;
      const auth = await bindTermUrl(ctx, found, termUrl, md);
      if (auth.status !== 'pending') {
        const { pares } = decided(ctx, auth);
        return answerPage(c, auth.term_url ?? termUrl, pares, auth.md ?? md);
      }
      return challengePage(c, auth, pareq);
    })
    .post('/acs/challenge/submit', async (c) => {
      const form = await readForm(c);
      if (!form) return errorPage(c, 400, 'Envie um formulário / post a form');
      const pareq = field(form, 'PaReq');
      const found = await load(c, pareq);
      if (found instanceof Response) return found;
      if (found.term_url === null) {
        return errorPage(c, 400, 'Desafio não iniciado / open the challenge first');
      }
      const termUrl = found.term_url;
      const md = found.md ?? '';
      if (found.status !== 'pending') {
        return answerPage(c, termUrl, decided(ctx, found).pares, md);
      }
      const action = field(form, 'action') === 'cancel' ? 'cancel' : 'submit';
      const otp = field(form, 'otp').trim();
      const outcome = await submitOtp(ctx, found, action, otp);
      if (outcome.kind === 'retry') {
        return challengePage(
          c,
          { ...found, otp_tries: MAX_OTP_TRIES - outcome.triesLeft },
          pareq,
          `Código incorreto; ${outcome.triesLeft} tentativa(s) restante(s) / Wrong code; ${outcome.triesLeft} attempt(s) left`,
        );
      }
      return answerPage(c, termUrl, outcome.pares, md);
    });
}
