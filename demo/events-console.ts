import { html } from 'hono/html';
import type { Logger } from 'pino';
import { z } from 'zod';
import { EVENT_DELIVERY_STATUSES, EVENT_TYPES } from '../contract/events';
import { silentLogger } from '../server/lib/logging';
import type { ConsoleSection } from './views';

const EventSchema = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
  delivery: z.object({
    status: z.enum(EVENT_DELIVERY_STATUSES),
    attempts: z.number(),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
  }),
});
const PageSchema = z.object({ data: z.array(EventSchema), hasMore: z.boolean() });

const DELIVERY: Record<string, string> = {
  pending: 'Aguardando nova tentativa',
  delivered: 'Entregue',
  failed: 'Falhou (3 dias)',
  none: 'Sem URL de eventos',
};

/**
 * The console's "Eventos": the BFF's last 20 events (`GET /v1/events`, with the merchant
 * secret, server side) and where each delivery to the store stands.
 */
export function eventsConsole(opts: {
  bffUrl: string;
  merchantSecret: string;
  fetch?: typeof fetch;
  logger?: Logger;
}): ConsoleSection {
  const doFetch = opts.fetch ?? fetch;
  const log = opts.logger ?? silentLogger;
  return {
    id: 'events',
    title: 'Eventos',
    async render() {
      try {
        const res = await doFetch(`${opts.bffUrl.replace(/\/$/, '')}/v1/events?limit=20`, {
          headers: { authorization: `Bearer ${opts.merchantSecret}`, accept: 'application/json' },
          signal: AbortSignal.timeout(5_000),
        });
        const parsed = res.ok ? PageSchema.safeParse(await res.json()) : null;
        if (parsed?.success) return eventsTable(parsed.data.data);
        log.warn({ status: res.status }, 'events not listed');
      } catch (err) {
        log.warn({ err: { message: (err as Error).message } }, 'events not listed');
      }
      return html`<p role="alert">Não foi possível listar os eventos do BFF.</p>`;
    },
  };
}

function eventsTable(events: z.infer<typeof EventSchema>[]) {
  if (events.length === 0) return html`<p data-testid="no-events">Nenhum evento ainda.</p>`;
  return html`<table data-testid="events">
    <caption>
      Eventos enviados à loja (mais recentes primeiro)
    </caption>
    <thead>
      <tr>
        <th scope="col">Evento</th>
        <th scope="col">Tipo</th>
        <th scope="col">Sobre</th>
        <th scope="col">Entrega</th>
      </tr>
    </thead>
    <tbody>
      ${events.map((e) => {
        const about = String(e.data.sessionId ?? e.data.id ?? '');
        return html`<tr data-testid="event-row" data-event-id="${e.id}" data-type="${e.type}">
          <th scope="row"><code>${e.id}</code></th>
          <td>${e.type}</td>
          <td><code>${about}</code></td>
          <td data-testid="event-delivery" data-status="${e.delivery.status}">
            ${DELIVERY[e.delivery.status] ?? e.delivery.status} · ${e.delivery.attempts}
            tentativa(s)
          </td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}
