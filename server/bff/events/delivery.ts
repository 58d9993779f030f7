import { Webhook } from 'standardwebhooks';
import { MS } from '../../lib/clock';
import { exchange, keepAliveAgents, type KeepAliveAgents } from '../../lib/http-exchange';
import type { BffContext } from '../context';
import {
  claimEventQuery,
  claimLapseQuery,
  dueEventsQuery,
  eventsDb,
  nextRetryQuery,
  type EventRow,
} from './store';

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
 * old. Several instances share the work: each claims the events it sends (a claim lapses after
 * twice the timeout, so a killed instance's events are taken over) and records the answer only
 * while its claim holds. An event a receiver answered 2xx is never sent again by us; a crash
 * between the 2xx and its record can send it once more, which is why `webhook-id` is stable.
 *
 * Up to `CONCURRENCY` workers pull from one queue of due events. A read of what is due (a
 * kick, a retry's timer, a worker that emptied the queue) adds workers for what it found, so a
 * receiver that hangs on one event holds one worker, never the events recorded after it; and
 * an event refused earlier is read again once its retry is due, however long the others take.
 */
export class EventDelivery {
  /** Due events read and not yet taken by a worker. */
  private readonly queue: EventRow[] = [];
  /**
   * Events this instance has queued or is sending: never read into the queue again meanwhile,
   * even when the store shows one due (its claim lapsed under a receiver slower than that).
   */
  private readonly held = new Set<string>();
  /**
   * Held events a read found due (redelivered, or their claim lapsed, while this instance sends
   * them): read again once released, as no kick may come for them.
   */
  private readonly skipped = new Set<string>();
  private workers = 0;
  /** The store may hold due events not read yet (a kick came, or a read was full). */
  private unread = false;
  /** The read of what is due, one at a time. */
  private filling: Promise<void> | null = null;
  /** A kick is waiting out `LINGER_MS`: a kick now is already covered. */
  private lingering = false;
  /** The read of when the next retry is due, one at a time; `rewake`: once more after it. */
  private waking: Promise<void> | null = null;
  private rewake = false;
  /** Settles when nothing is read, sent or waited for (`idle()`). */
  private busy: { done: Promise<void>; settle: () => void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When `timer` fires, by the BFF's clock (ms). */
  private timerAt = 0;
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

  /** Reads what is due soon, and starts workers for it; a kick meanwhile is covered. */
  kick(): void {
    if (!this.signer || this.stopped || this.lingering) return;
    // A short linger: events of the next few milliseconds share one read, and the read runs
    // after the answer that made the event has gone out.
    this.lingering = true;
    this.begin();
    setTimeout(() => {
      this.lingering = false;
      this.unread = true;
      this.fill();
      this.settle();
    }, LINGER_MS);
  }

  /**
   * Picks up what a stopped process left (mounting): the retries due now are sent, and the
   * timer is armed for the next one. Refusals are rows, the timer that waits for their retry
   * is not: without this, a BFF started again waited for a kick (a maintenance round, none
   * when `BFF_RESOLVE_INTERVAL_MS=0`; a new event) however long the retry had been due.
   */
  resume(): void {
    if (!this.signer || this.stopped) return;
    this.kick();
    this.wakeForNextRetry();
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

  /** Resolves once nothing is read, sent or waited for (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.busy) await this.busy.done;
  }

  /** Sends every event that is due now; resolves once they, and any sent meanwhile, are done. */
  async deliverDue(): Promise<void> {
    if (!this.signer) return;
    this.begin();
    this.unread = true;
    this.fill();
    this.settle();
    await this.idle();
  }

  private begin(): void {
    if (this.busy) return;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.busy = { done, settle };
  }

  private settle(): void {
    if (this.lingering || this.filling || this.waking || this.workers > 0 || !this.busy) return;
    this.busy.settle();
    this.busy = null;
  }

  /**
   * Reads up to `BATCH` due events into the queue and starts workers for them, up to
   * `CONCURRENCY` in all. One read at a time, and none while events are queued: the worker
   * that takes the last one reads next, if a kick (or a full read) left events unread.
   */
  private fill(): void {
    if (this.filling || !this.unread || this.queue.length > 0 || this.stopped) return;
    this.begin();
    this.filling = (async () => {
      while (this.unread && this.queue.length === 0 && !this.stopped) {
        this.unread = false;
        const rows = await this.due();
        for (const row of rows) {
          if (this.held.has(row.id)) {
            this.skipped.add(row.id);
            continue;
          }
          this.held.add(row.id);
          this.queue.push(row);
        }
        // Held rows are at most the events in flight, fewer than a read: a full read found
        // new ones, and there may be more.
        if (rows.length === BATCH) this.unread = true;
        // Each new worker takes its first row at once (`work`).
        while (this.workers < CONCURRENCY && this.queue.length > 0) {
          this.workers++;
          void this.work();
        }
      }
    })()
      .catch(this.readFailed('the due events'))
      .finally(() => {
        this.filling = null;
        this.settle();
      });
  }

  /** Logs a read of the store that failed: the next kick reads again. */
  private readFailed(what: string): (err: unknown) => void {
    return (err) =>
      this.ctx.logger.warn(
        { event: 'events.delivery_failed', err: { message: (err as Error).message } },
        `reading ${what} failed; read again at the next kick`,
      );
  }

  /**
   * A worker: sends queued events one after another, then reads more if any may be unread
   * (`fill`) and ends. Each row is claimed just before it is sent (for twice the delivery
   * timeout from then), so a claim never lapses while its send is still allowed to run.
   */
  private async work(): Promise<void> {
    const next = () => (this.stopped ? undefined : this.queue.shift());
    for (let row = next(); row; row = next()) {
      try {
        // The store is synchronous under SQLite: let waiting requests in between events, so
        // a worker never holds the event loop for more than one event's step.
        await yieldToIo();
        const claimed = await this.claimRow(row);
        // An answer not recorded: the event changed meanwhile (a redelivery): read it again.
        if (claimed && !(await this.deliver(claimed))) this.unread = true;
      } catch (err) {
        // The store failed (or closed): the claim lapses and the event is sent again later.
        this.ctx.logger.warn(
          {
            event: 'events.record_failed',
            eventId: row.id,
            err: { message: (err as Error).message },
          },
          'an event delivery could not be recorded; it will be sent again',
        );
        // Once its claim lapses: nothing else may come to wake this process then.
        this.wakeForNextRetry();
      } finally {
        this.held.delete(row.id);
        if (this.skipped.delete(row.id)) this.unread = true;
      }
    }
    this.workers--;
    this.fill();
    this.settle();
  }

  /**
   * Arms the timer to kick when a retry due at `at` (clock ms) comes, unless it fires earlier
   * already; at most a minute ahead (the maintenance round kicks too). Firing, it also reads
   * the retry due next, so every retry keeps its time however long the workers are busy.
   */
  private wakeAt(at: number): void {
    if (this.stopped) return;
    const now = this.ctx.clock.now().getTime();
    const wait = Math.min(Math.max(at - now, 100), MS.minute);
    if (this.timer && this.timerAt <= now + wait) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = now + wait;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
      this.wakeForNextRetry();
    }, wait);
    this.timer.unref();
  }

  /**
   * Reads when the earliest retry after now is due, or the earliest claim on an event due now
   * lapses (a process killed while sending it: skipped until then), and wakes for it (`wakeAt`).
   */
  private wakeForNextRetry(): void {
    if (this.stopped) return;
    if (this.waking) {
      this.rewake = true;
      return;
    }
    this.begin();
    const now = this.ctx.clock.now().toISOString();
    this.waking = Promise.all([
      nextRetryQuery(this.ctx.db, now).executeTakeFirst(),
      claimLapseQuery(this.ctx.db, now).executeTakeFirst(),
    ])
      .then(([next, lapse]) => {
        const at = Math.min(
          next?.at ? Date.parse(next.at) : Infinity,
          // A claim holds until its instant has passed.
          lapse?.at ? Date.parse(lapse.at) + 1 : Infinity,
        );
        if (at < Infinity) this.wakeAt(at);
      })
      .catch(this.readFailed('the next retry'))
      .finally(() => {
        this.waking = null;
        if (this.rewake) {
          this.rewake = false;
          this.wakeForNextRetry();
        }
        this.settle();
      });
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

  /**
   * Sends a claimed row (`claimRow`) and records the answer while the claim holds; resolves
   * whether it did.
   */
  private async deliver(row: EventRow): Promise<boolean> {
    const until = row.claimed_until!;
    const sent = await this.send(row);
    // Cut by this process's own stop (its sockets are destroyed): not the receiver's answer,
    // and no try of the event's. Its claim lapses and it is sent again (same `webhook-id`).
    if (sent.error !== null && this.stopped) return true;
    await yieldToIo();
    const now = this.ctx.clock.now();
    const failures = Number(row.attempts) + 1;
    const db = eventsDb(this.ctx.db);
    const attempt = Number(row.total_attempts) + 1;
    let status: 'delivered' | 'pending' | 'failed';
    let nextAt: string | null = null;
    if (sent.error === null) status = 'delivered';
    else {
      const next = now.getTime() + retryDelayMs(failures);
      const gaveUp = next - Date.parse(row.series_started_at) > GIVE_UP_AFTER_MS;
      status = gaveUp ? 'failed' : 'pending';
      nextAt = gaveUp ? null : new Date(next).toISOString();
    }
    const recorded = await db.transaction().execute(async (trx) => {
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
      if (Number(res.numUpdatedRows) !== 1) return false;
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
      return true;
    });
    // Its retry is woken for now, not once the other workers are done.
    if (recorded && nextAt) this.wakeAt(Date.parse(nextAt));
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
    return recorded;
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
  d.resume();
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
