import { Webhook } from 'standardwebhooks';
import { MS } from '../../lib/clock';
import { exchange, keepAliveAgents, type KeepAliveAgents } from '../../lib/http-exchange';
import type { BffContext } from '../context';
import { claimEventQuery, dueEventsQuery, eventsDb, nextRetryQuery, type EventRow } from './store';

/**
 * Pause after each failed attempt of a series (Stripe-like); past the last, every 12 h. The
 * series gives up once it is `GIVE_UP_AFTER_MS` old: the event is then `failed` (a merchant
 * redelivers it from `POST /v1/events/:id/redeliver`).
 */
export const RETRY_DELAYS_MS = [
  5 * MS.second,
  MS.minute,
  5 * MS.minute,
  30 * MS.minute,
  2 * MS.hour,
  5 * MS.hour,
  10 * MS.hour,
  12 * MS.hour,
];
export const GIVE_UP_AFTER_MS = 3 * 24 * MS.hour;
/** Events claimed at a time, and sent at once by one instance. */
const BATCH = 64;
const CONCURRENCY = 32;
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a kicked round waits before it starts. */
const LINGER_MS = 25;
const USER_AGENT = 'card-checkout-events/1 (+Standard Webhooks)';

export function retryDelayMs(failures: number): number {
  return RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length) - 1] ?? 12 * MS.hour;
}

/** The request body of an event: `{id, type, createdAt, data}`. */
export function eventBody(row: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>): string {
  return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"createdAt":${JSON.stringify(row.created_at)},"data":${row.data}}`;
}

interface Sent {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Delivers the outbox to `BFF_EVENTS_URL`, signed per Standard Webhooks (`webhook-id` is the
 * event id, `webhook-timestamp` the real time of sending, `webhook-signature` HMAC-SHA256 with
 * `BFF_EVENTS_SECRET`, by the `standardwebhooks` package). A 2xx within the timeout delivers
 * the event; anything else is retried after `RETRY_DELAYS_MS` until the series is three days
 * old. Several instances share the work: each claims a batch (a claim lapses after twice the
 * timeout, so a killed instance's events are taken over) and records the answer only while
 * its claim holds. An event a receiver answered 2xx is never sent again by us; a crash between
 * the 2xx and its record can send it once more, which is why `webhook-id` is stable.
 */
export class EventDelivery {
  private running: Promise<void> | null = null;
  /** The kicked round has not read the due events yet: a kick now is already covered. */
  private lingering = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  /** Whether a delivery of the current round failed (a retry to wake up for). */
  private failedInRound = false;
  private stopped = false;
  private readonly signer: Webhook | null;

  private readonly target: URL | null;
  /** Keep-alive connections to the receiver, shared by the workers. */
  private readonly agents: KeepAliveAgents;

  constructor(private readonly ctx: BffContext) {
    const { eventsUrl, eventsSecret } = ctx.config;
    this.signer = eventsUrl && eventsSecret ? new Webhook(eventsSecret) : null;
    this.target = eventsUrl ? new URL(eventsUrl) : null;
    this.agents = keepAliveAgents(CONCURRENCY);
  }

  /** Starts a round soon; one at a time, run again if kicked meanwhile. */
  kick(): void {
    if (!this.signer || this.stopped) return;
    if (this.running) {
      if (!this.lingering) this.again = true;
      return;
    }
    // A short linger: events of the next few milliseconds share the round (one query for
    // them all), and the round runs after the answer that made the event has gone out.
    this.lingering = true;
    this.running = new Promise<void>((resolve) => setTimeout(resolve, LINGER_MS))
      .then(() => {
        this.lingering = false;
        this.failedInRound = false;
        return this.deliverDue();
      })
      .then(() => (this.failedInRound ? this.wakeForNextRetry() : undefined))
      .catch((err: unknown) => {
        this.ctx.logger.warn(
          { event: 'events.delivery_failed', err: { message: (err as Error).message } },
          'event delivery round failed; tried again next round',
        );
      })
      .finally(() => {
        this.lingering = false;
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Kicks again when the earliest pending retry is due (at most a minute from now; the
   * maintenance round kicks too), so a 5 s retry does not wait for the next round.
   */
  private async wakeForNextRetry(): Promise<void> {
    const next = await nextRetryQuery(this.ctx.db).executeTakeFirst();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!next?.at || this.stopped) return;
    const wait = Math.min(
      Math.max(Date.parse(next.at) - this.ctx.clock.now().getTime(), 100),
      MS.minute,
    );
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, wait);
    this.timer.unref();
  }

  /**
   * Stops sending (shutdown): nothing new starts. A delivery in flight is not waited for: if
   * its answer cannot be recorded, its claim lapses and it is sent again (same `webhook-id`).
   */
  stop(): void {
    this.stopped = true;
    this.agents.destroy();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Resolves once no round is running (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Sends every event that is due now. `CONCURRENCY` workers pull from one queue, refilled
   * `BATCH` rows at a time, so a receiver that hangs on one event holds one worker, not the
   * round. Each row is claimed just before it is sent (for twice the delivery timeout from
   * then), so a claim never lapses while its send is still allowed to run.
   */
  async deliverDue(): Promise<void> {
    if (!this.signer) return;
    const queue: EventRow[] = [];
    const queued = new Set<string>();
    let exhausted = false;
    let filling: Promise<void> | null = null;
    const refill = async () => {
      const rows = await this.due();
      const fresh = rows.filter((r) => !queued.has(r.id));
      if (fresh.length === 0) exhausted = true;
      for (const r of fresh) {
        queued.add(r.id);
        queue.push(r);
      }
    };
    const next = async (): Promise<EventRow | undefined> => {
      while (queue.length === 0 && !exhausted) {
        filling ??= refill().finally(() => {
          filling = null;
        });
        await filling;
      }
      return queue.shift();
    };
    const worker = async () => {
      for (let row = await next(); row; row = await next()) {
        // The store is synchronous under SQLite: let waiting requests in between events, so
        // a round never holds the event loop for more than one event's step.
        await yieldToIo();
        const claimed = await this.claimRow(row);
        if (!claimed) continue;
        await this.deliver(claimed).catch((err: unknown) => {
          // The store failed (or closed): the claim lapses and the event is sent again later.
          this.ctx.logger.warn(
            {
              event: 'events.record_failed',
              eventId: row.id,
              err: { message: (err as Error).message },
            },
            'an event delivery could not be recorded; it will be sent again',
          );
        });
      }
    };
    await next().then((first) => first && queue.unshift(first));
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  }

  private claimMs(): number {
    return 2 * this.ctx.config.eventsTimeoutMs;
  }

  /** Up to `BATCH` due events that no live claim holds, the longest waiting first. */
  private async due(): Promise<EventRow[]> {
    const now = this.ctx.clock.now().toISOString();
    return dueEventsQuery(this.ctx.db, now, BATCH).execute();
  }

  /**
   * Claims one event (compare-and-set on the claim and the tries it was read with): resolves
   * the row as claimed, or null when another instance took it, or tried or delivered it
   * meanwhile.
   */
  private async claimRow(row: EventRow): Promise<EventRow | null> {
    const until = new Date(this.ctx.clock.now().getTime() + this.claimMs()).toISOString();
    return (await claimEventQuery(this.ctx.db, row, until).executeTakeFirst()) ?? null;
  }

  private async send(row: EventRow): Promise<Sent> {
    const body = eventBody(row);
    const sentAt = new Date();
    const started = performance.now();
    const answered = await postOnce(
      this.target!,
      this.agents,
      this.ctx.config.eventsTimeoutMs,
      body,
      {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': row.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': this.signer!.sign(row.id, sentAt, body),
      },
    );
    const durationMs = Math.round(performance.now() - started);
    if ('error' in answered) return { status: null, error: answered.error, durationMs };
    const ok = answered.status >= 200 && answered.status < 300;
    return { status: answered.status, error: ok ? null : `HTTP ${answered.status}`, durationMs };
  }

  /** Sends a claimed row (`claimRow`) and records the answer while the claim holds. */
  private async deliver(row: EventRow): Promise<void> {
    const until = row.claimed_until!;
    const sent = await this.send(row);
    await yieldToIo();
    const now = this.ctx.clock.now();
    const failures = Number(row.attempts) + 1;
    const db = eventsDb(this.ctx.db);
    const attempt = Number(row.total_attempts) + 1;
    let status: 'delivered' | 'pending' | 'failed';
    let nextAt: string | null = null;
    if (sent.error === null) status = 'delivered';
    else {
      this.failedInRound = true;
      const next = now.getTime() + retryDelayMs(failures);
      const gaveUp = next - Date.parse(row.series_started_at) > GIVE_UP_AFTER_MS;
      status = gaveUp ? 'failed' : 'pending';
      nextAt = gaveUp ? null : new Date(next).toISOString();
    }
    await db.transaction().execute(async (trx) => {
      // Only while our claim holds: a claim that lapsed (a very slow receiver) is another's.
      const res = await trx
        .updateTable('bff_events')
        .set({
          delivery_status: status,
          attempts: failures,
          total_attempts: attempt,
          next_attempt_at: nextAt,
          claimed_until: null,
          ...(status === 'delivered' ? { delivered_at: now.toISOString() } : {}),
        })
        .where('id', '=', row.id)
        .where('claimed_until', '=', until)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return;
      await trx
        .insertInto('bff_event_attempts')
        .values({
          event_id: row.id,
          attempt,
          at: now.toISOString(),
          status: sent.status,
          error: sent.error,
          duration_ms: sent.durationMs,
        })
        .execute();
    });
    const log = { event: `events.${status}`, eventId: row.id, type: row.type, attempt };
    if (status === 'delivered')
      this.ctx.logger.info({ ...log, status: sent.status }, 'event delivered');
    else {
      this.ctx.logger.warn(
        { ...log, status: sent.status, error: sent.error, nextAttemptAt: nextAt },
        status === 'failed'
          ? 'event delivery gave up after three days'
          : 'event delivery failed; retried later',
      );
    }
  }
}

/**
 * One POST of an event: its status, or why there was none (`timeout` past `timeoutMs` for the
 * whole exchange, or the socket error's code), over the keep-alive agents of `exchange`.
 */
async function postOnce(
  url: URL,
  agents: KeepAliveAgents,
  timeoutMs: number,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number } | { error: string }> {
  // The answer's body is not ours to keep: drained unread, so the connection is reused.
  const x = exchange(url, { method: 'POST', headers, body, agents, readBody: false });
  const timer = setTimeout(() => x.abort(new TimedOut()), timeoutMs);
  try {
    return { status: (await x.answer).status };
  } catch (err) {
    if (err instanceof TimedOut) return { error: 'timeout' };
    const e = err as Error & { code?: string };
    return { error: (e.code ?? e.name ?? 'network error').slice(0, 200) };
  } finally {
    clearTimeout(timer);
  }
}

class TimedOut extends Error {}

const deliveries = new WeakMap<object, EventDelivery>();
const DELIVERY = Symbol('eventDelivery');

/** Mounts the delivery worker of a BFF (createBffApp). */
export function mountEventDelivery(ctx: BffContext): EventDelivery {
  const d = new EventDelivery(ctx);
  deliveries.set(ctx.db, d);
  // Copied along when a step makes `{ ...ctx, db: trx }` (atomically), so it still finds it.
  Object.defineProperty(ctx, DELIVERY, { value: d, enumerable: true });
  return d;
}

/**
 * The delivery worker of a BFF. Looked up by context or by its store, since a change records
 * its event through a context whose `db` is the transaction.
 */
export function eventDeliveryOf(ctx: BffContext): EventDelivery | undefined {
  return (
    (ctx as unknown as Record<symbol, EventDelivery | undefined>)[DELIVERY] ??
    deliveries.get(ctx.db)
  );
}
