import type { FrameData } from '../../../widget/frame/page-data';

/**
 * The HTML the BFF serves: the frame page, the 3DS launcher page and the TermUrl answer page.
 * Every dynamic value goes through `escapeHtml`; inline scripts run only under a per-response
 * CSP nonce, and JSON inside a script is escaped so it cannot close the element.
 */

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to embed in an inline `<script>`. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export type Locale = 'pt-BR' | 'en';

export function localeOf(value: string | undefined): Locale {
  return value === 'en' ? 'en' : 'pt-BR';
}

const TEXT = {
  'pt-BR': {
    frameTitle: 'Pagamento com cartão',
    notFoundTitle: 'Sessão não encontrada',
    notFound: 'Esta sessão de pagamento não existe.',
    launcherTitle: 'Autenticação do cartão',
    launcherBody: 'Redirecionando para o banco emissor…',
    continue: 'Continuar',
    answeredTitle: 'Autenticação concluída',
    answered: 'Autenticação concluída. Você pode fechar esta janela.',
    errorTitle: 'Não foi possível continuar',
    challengeUnknown: 'Esta autenticação não existe.',
    challengeEnded: 'Esta autenticação já terminou.',
    challengeIncomplete: 'A resposta do banco está incompleta.',
    challengeMismatch: 'A resposta do banco não confere.',
    challengeAnsweredTwice: 'Esta autenticação já foi respondida.',
    challengeExpired: 'Esta autenticação expirou.',
    formExpected: 'Esperávamos o envio de um formulário.',
  },
  en: {
    frameTitle: 'Card payment',
    notFoundTitle: 'Session not found',
    notFound: 'This checkout session does not exist.',
    launcherTitle: 'Card authentication',
    launcherBody: 'Taking you to your card issuer…',
    continue: 'Continue',
    answeredTitle: 'Authentication complete',
    answered: 'Authentication complete. You may close this window.',
    errorTitle: 'Could not continue',
    challengeUnknown: 'This authentication is unknown.',
    challengeEnded: 'This authentication has ended.',
    challengeIncomplete: 'The authentication answer is incomplete.',
    challengeMismatch: 'The authentication answer does not match.',
    challengeAnsweredTwice: 'This authentication was already answered.',
    challengeExpired: 'This authentication has expired.',
    formExpected: 'Expected a form post.',
  },
} as const;

/** The frame bundle the page loads: the content-hashed build (immutable) with its SRI hash. */
export interface FrameScript {
  src: string;
  integrity?: string;
}

/**
 * The card form page: loads the frame bundle. The form's texts in the shopper's language, its
 * styles and the brands' SVG symbols travel as a JSON data block (never executed), so they do
 * not weigh on the frame bundle. Its one inline script is the boot (`widget/frame/boot.ts`,
 * allowed by its hash in the page's CSP): the handshake with the host and the first reads, run
 * as the page is parsed rather than after the bundle has loaded.
 */
export function framePage(opts: {
  sessionId: string;
  origin: string;
  locale: Locale;
  data: FrameData;
  script: FrameScript;
  /** The boot script's code (inlined; the caller allows its hash in the CSP). */
  boot?: string;
}): string {
  const t = TEXT[opts.locale];
  const session = escapeHtml(opts.sessionId);
  const origin = escapeHtml(opts.origin);
  return `<!doctype html>
<html lang="${opts.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="checkout-session" content="${session}">
<meta name="checkout-origin" content="${origin}">
<title>${t.frameTitle}</title>
<script type="module" src="${escapeHtml(opts.script.src)}"${
    opts.script.integrity ? ` integrity="${escapeHtml(opts.script.integrity)}"` : ''
  }></script>
<script type="application/json" id="card-form-data">${scriptJson(opts.data)}</script>
${
  opts.boot
    ? `<script>${opts.boot}</script>
`
    : ''
}</head>
<body>
<card-form locale="${opts.locale}"></card-form>
</body>
</html>
`;
}

/** A small page for an error (unknown session, refused ACS answer). */
export function messagePage(opts: { title: string; message: string; locale?: Locale }): string {
  return `<!doctype html>
<html lang="${opts.locale ?? 'en'}">
<head><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title></head>
<body><main><h1>${escapeHtml(opts.title)}</h1><p>${escapeHtml(opts.message)}</p></main></body>
</html>
`;
}

export function notFoundFramePage(locale: Locale): string {
  const t = TEXT[locale];
  return messagePage({ title: t.notFoundTitle, message: t.notFound, locale });
}

/**
 * The challenge launcher: a form posting PaReq, MD and TermUrl to the ACS, submitted by a
 * nonce'd inline script; without JavaScript the shopper presses the visible button.
 */
export function launcherPage(opts: {
  acsUrl: string;
  pareq: string;
  md: string;
  termUrl: string;
  nonce: string;
  locale: Locale;
}): string {
  const t = TEXT[opts.locale];
  return `<!doctype html>
<html lang="${opts.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${t.launcherTitle}</title>
</head>
<body>
<form id="acs" method="post" action="${escapeHtml(opts.acsUrl)}">
<input type="hidden" name="PaReq" value="${escapeHtml(opts.pareq)}">
<input type="hidden" name="MD" value="${escapeHtml(opts.md)}">
<input type="hidden" name="TermUrl" value="${escapeHtml(opts.termUrl)}">
<p>${t.launcherBody}</p>
<noscript><button type="submit">${t.continue}</button></noscript>
</form>
<script nonce="${escapeHtml(opts.nonce)}">document.getElementById('acs').submit();</script>
</body>
</html>
`;
}

/**
 * The TermUrl answer: tells the host window (the merchant page, exact origin) that the
 * challenge was answered. It is only a signal: the frame reads the outcome from the BFF.
 */
export function answeredPage(opts: {
  challengeId: string;
  targetOrigin: string;
  nonce: string;
  locale: Locale;
}): string {
  const t = TEXT[opts.locale];
  const message = scriptJson({ type: 'challenge-answered', challengeId: opts.challengeId });
  const target = scriptJson(opts.targetOrigin);
  return `<!doctype html>
<html lang="${opts.locale}">
<head><meta charset="utf-8"><title>${t.answeredTitle}</title></head>
<body>
<p>${t.answered}</p>
<script nonce="${escapeHtml(opts.nonce)}">window.parent.postMessage(${message}, ${target});</script>
</body>
</html>
`;
}

export function errorTitle(locale: Locale): string {
  return TEXT[locale].errorTitle;
}

export type ChallengeProblem =
  | 'challengeUnknown'
  | 'challengeEnded'
  | 'challengeIncomplete'
  | 'challengeMismatch'
  | 'challengeAnsweredTwice'
  | 'challengeExpired'
  | 'formExpected';

/** A challenge page's error, in the shopper's language. */
export function challengeErrorPage(locale: Locale, problem: ChallengeProblem): string {
  return messagePage({ title: errorTitle(locale), message: TEXT[locale][problem], locale });
}
