import { escapeHtml, type Locale } from './html';

const TEXT = {
  'pt-BR': {
    title: 'Autenticação do cartão',
    opening: 'Abrindo a autenticação do banco…',
    missing: 'Não foi possível abrir a autenticação. Feche esta janela e tente de novo.',
  },
  en: {
    title: 'Card authentication',
    opening: 'Opening your bank’s authentication…',
    missing: 'The authentication could not be opened. Close this window and try again.',
  },
} as const;

/**
 * The first page of the challenge iframe. The per-challenge secret is in the URL fragment,
 * which browsers never send: this page's nonce'd script reads it, drops it from the address
 * and posts it (a form body, not a URL) to the launcher, which answers the ACS form.
 */
export function challengeBootstrapPage(opts: {
  action: string;
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
<title>${t.title}</title>
</head>
<body>
<form id="open" method="post" action="${escapeHtml(opts.action)}"><input type="hidden" name="MD" value=""></form>
<p id="status" role="status">${t.opening}</p>
<script nonce="${escapeHtml(opts.nonce)}">(function () {
  var secret = location.hash.slice(1);
  history.replaceState(null, '', location.pathname + location.search);
  if (!/^[0-9a-f]{40}$/.test(secret)) {
    document.getElementById('status').textContent = ${JSON.stringify(t.missing)};
    return;
  }
  var form = document.getElementById('open');
  form.elements.MD.value = secret;
  form.submit();
})();</script>
</body>
</html>
`;
}
