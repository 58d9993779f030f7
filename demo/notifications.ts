import { Hono } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import type { ConsoleSection } from './views';

/** A gateway notification as the BFF lists it (`GET /v1/webhook-notifications`). */
export const ConsoleNotificationSchema = z.object({
  movementId: z.number(),
  nsu: z.string(),
  codAuth: z.string(),
  installmentNumber: z.number(),
  moment: z.string(),
  type: z.string(),
  oldValue: z.string().nullable(),
  newValue: z.string(),
  receivedAt: z.string(),
  status: z.string(),
  sessionId: z.string().nullable(),
});
export type ConsoleNotification = z.infer<typeof ConsoleNotificationSchema>;

const ListSchema = z.object({ data: z.array(ConsoleNotificationSchema), hasMore: z.boolean() });

export type NotificationsResult =
  { ok: true; items: ConsoleNotification[] } | { ok: false; status: number };

/** Labels shared by the server-rendered rows and the browser script. */
const STATUS_LABELS: Record<string, string> = {
  received: 'Recebida, confirmando',
  processed: 'Aplicada ao pagamento',
  unmatched: 'Sem pagamento nosso',
  unverified: 'Não confirmada pelo gateway',
};

const POLL_MS = 2_000;

/** `2026-01-02T10:00:00.000Z` → `2026-01-02 10:00:00 UTC` (same text on server and browser). */
function when(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The console's "Notificações do gateway": rows rendered with the page, then kept current by
 * `/console/notifications.js`, which polls `/console/notifications.json` every 2 s. That JSON
 * comes from this server, which asks the BFF with the merchant secret: the secret never
 * reaches the browser, and the browser gets only the notification fields.
 */
export function notificationsConsole(opts: {
  bffUrl: string;
  merchantSecret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): { routes: Hono; section: ConsoleSection; list(): Promise<NotificationsResult> } {
  const doFetch = opts.fetch ?? fetch;
  const url = `${opts.bffUrl.replace(/\/$/, '')}/v1/webhook-notifications?limit=50`;

  async function list(): Promise<NotificationsResult> {
    try {
      const res = await doFetch(url, {
        headers: { authorization: `Bearer ${opts.merchantSecret}`, accept: 'application/json' },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5_000),
      });
      if (!res.ok) return { ok: false, status: res.status };
      const parsed = ListSchema.safeParse(await res.json());
      return parsed.success ? { ok: true, items: parsed.data.data } : { ok: false, status: 502 };
    } catch {
      return { ok: false, status: 0 };
    }
  }

  const row = (n: ConsoleNotification) =>
    html`<tr
      data-testid="notification-row"
      data-movement-id="${n.movementId}"
      data-new-value="${n.newValue}"
    >
      <th scope="row">${n.movementId}</th>
      <td><time datetime="${n.receivedAt}">${when(n.receivedAt)}</time></td>
      <td>${n.type}: ${n.oldValue ? `${n.oldValue} → ` : ''}${n.newValue}</td>
      <td><code>${n.nsu}</code></td>
      <td><code>${n.codAuth || '—'}</code></td>
      <td class="num">${n.installmentNumber}</td>
      <td data-field="session">${n.sessionId ? html`<code>${n.sessionId}</code>` : '—'}</td>
      <td data-field="status" data-status="${n.status}">${STATUS_LABELS[n.status] ?? n.status}</td>
    </tr>`;

  const section: ConsoleSection = {
    id: 'notificacoes',
    title: 'Notificações do gateway',
    async render() {
      const found = await list();
      const items = found.ok ? found.items : [];
      return html`<p>
          Mudanças de situação que o gateway enviou ao webhook do BFF. A tabela se atualiza sozinha
          a cada ${POLL_MS / 1000} segundos.
        </p>
        ${
          found.ok
            ? ''
            : html`<p class="error" role="alert">
                Não foi possível listar as notificações do BFF.
              </p>`
        }
        <p
          id="notifications-status"
          role="status"
          aria-live="polite"
          data-testid="notifications-status"
        ></p>
        <p data-testid="no-notifications" ${items.length ? 'hidden' : ''}>
          Nenhuma notificação ainda.
        </p>
        <table data-testid="notifications" ${items.length ? '' : 'hidden'}>
          <caption>
            Notificações recebidas (mais recentes primeiro)
          </caption>
          <thead>
            <tr>
              <th scope="col">Movimento</th>
              <th scope="col">Recebida em</th>
              <th scope="col">Mudança</th>
              <th scope="col">NSU</th>
              <th scope="col">Autorização</th>
              <th scope="col" class="num">Parcela</th>
              <th scope="col">Sessão</th>
              <th scope="col">Situação</th>
            </tr>
          </thead>
          <tbody>
            ${items.map(row)}
          </tbody>
        </table>
        <script type="module" src="/console/notifications.js"></script>`;
    },
  };

  const routes = new Hono()
    .get('/notifications.json', async (c) => {
      const found = await list();
      if (!found.ok) return c.json({ error: 'BFF unavailable' }, 502);
      return c.json({ items: found.items });
    })
    .get('/notifications.js', (c) => {
      c.header('content-type', 'text/javascript; charset=utf-8');
      return c.body(CLIENT_SCRIPT);
    });

  return { routes, section, list };
}

/**
 * The browser half, served as a file (no inline script, so a CSP can forbid those). Builds rows
 * with DOM calls and `textContent` only: notification fields are never parsed as HTML.
 */
const CLIENT_SCRIPT = `// Polls the demo server and keeps the notifications table current.
const STATUS_LABELS = ${JSON.stringify(STATUS_LABELS)};
const POLL_MS = ${POLL_MS};
const MAX_ROWS = 200;
const table = document.querySelector('[data-testid="notifications"]');
const empty = document.querySelector('[data-testid="no-notifications"]');
const status = document.getElementById('notifications-status');
const body = table.tBodies[0];
const rows = new Map();
for (const tr of body.rows) rows.set(Number(tr.dataset.movementId), tr);
let failing = false;

function when(iso) {
  return iso.slice(0, 19).replace('T', ' ') + ' UTC';
}

function cell(tag, text, code) {
  const el = document.createElement(tag);
  if (code) {
    const c = document.createElement('code');
    c.textContent = text;
    el.append(c);
  } else {
    el.textContent = text;
  }
  return el;
}

function fillSession(td, sessionId) {
  td.replaceChildren();
  if (sessionId) {
    const c = document.createElement('code');
    c.textContent = sessionId;
    td.append(c);
  } else {
    td.textContent = '—';
  }
}

function fillStatus(td, value) {
  td.dataset.status = value;
  td.textContent = STATUS_LABELS[value] || value;
}

function newRow(n) {
  const tr = document.createElement('tr');
  tr.dataset.testid = 'notification-row';
  tr.dataset.movementId = String(n.movementId);
  tr.dataset.newValue = n.newValue;
  const th = cell('th', String(n.movementId));
  th.scope = 'row';
  const time = document.createElement('time');
  time.dateTime = n.receivedAt;
  time.textContent = when(n.receivedAt);
  const received = document.createElement('td');
  received.append(time);
  const change = cell('td', n.type + ': ' + (n.oldValue ? n.oldValue + ' → ' : '') + n.newValue);
  const installment = cell('td', String(n.installmentNumber));
  installment.className = 'num';
  const session = document.createElement('td');
  session.dataset.field = 'session';
  fillSession(session, n.sessionId);
  const state = document.createElement('td');
  state.dataset.field = 'status';
  fillStatus(state, n.status);
  tr.append(th, received, change, cell('td', n.nsu, true), cell('td', n.codAuth || '—', true),
    installment, session, state);
  return tr;
}

function insert(tr, movementId) {
  // Newest (highest movement) first, wherever a late delivery belongs.
  for (const other of body.rows) {
    if (Number(other.dataset.movementId) < movementId) {
      body.insertBefore(tr, other);
      return;
    }
  }
  body.append(tr);
}

function apply(items) {
  const fresh = [];
  for (const n of items) {
    const known = rows.get(n.movementId);
    if (known) {
      const state = known.querySelector('[data-field="status"]');
      if (state.dataset.status !== n.status) fillStatus(state, n.status);
      const session = known.querySelector('[data-field="session"]');
      if ((session.textContent === '—' ? null : session.textContent) !== n.sessionId) {
        fillSession(session, n.sessionId);
      }
      continue;
    }
    const tr = newRow(n);
    rows.set(n.movementId, tr);
    insert(tr, n.movementId);
    fresh.push(n);
  }
  while (body.rows.length > MAX_ROWS) {
    const last = body.rows[body.rows.length - 1];
    rows.delete(Number(last.dataset.movementId));
    last.remove();
  }
  if (body.rows.length > 0) {
    table.hidden = false;
    empty.hidden = true;
  }
  if (fresh.length === 1) {
    const n = fresh[0];
    status.textContent = 'Nova notificação: ' + n.newValue + ', NSU ' + n.nsu + '.';
  } else if (fresh.length > 1) {
    status.textContent = fresh.length + ' novas notificações.';
  }
}

async function poll() {
  try {
    const res = await fetch('/console/notifications.json', {
      headers: { accept: 'application/json' },
      cache: 'no-store',
    });
    if (!res.ok) throw new Error(String(res.status));
    apply((await res.json()).items);
    failing = false;
  } catch {
    if (!failing) status.textContent = 'Não foi possível atualizar as notificações agora.';
    failing = true;
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

setTimeout(poll, POLL_MS);
`;
