import { Webhook } from 'standardwebhooks';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import { eventsDb, type EventRow } from './store';

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
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly signer: Webhook | null;

  constructor(private readonly ctx: BffContext) {
    const { eventsUrl, eventsSecret } = ctx.config;
    this.signer = eventsUrl && eventsSecret ? new Webhook(eventsSecret) : null;
  }

  /** Starts a round soon; one at a time, run again if kicked meanwhile. */
  kick(): void {
    if (!this.signer || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.deliverDue())
      .then(() => this.wakeForNextRetry())
      .catch((err: unknown) => {
        this.ctx.logger.warn(
          { event: 'events.delivery_failed', err: { message: (err as Error).message } },
          'event delivery round failed; tried again next round',
        );
      })
      .finally(() => {
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
    const next = await eventsDb(this.ctx.db)
      .selectFrom('bff_events')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('delivery_status', '=', 'pending')
      .executeTakeFirst();
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Resolves once no round is running (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Sends every event that is due now, batch by batch. */
  async deliverDue(): Promise<void> {
    if (!this.signer) return;
    for (;;) {
      const batch = await this.claim();
      if (batch.length === 0) return;
      let next = 0;
      const worker = async () => {
        while (next < batch.length) {
          const row = batch[next++]!;
          await this.deliver(row.row, row.until);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batch.length) }, worker));
    }
  }

  private claimMs(): number {
    return 2 * this.ctx.config.eventsTimeoutMs;
  }

  /** Claims up to `BATCH` due events no live claim holds (compare-and-set per row). */
  private async claim(): Promise<{ row: EventRow; until: string }[]> {
    const db = eventsDb(this.ctx.db);
    const now = this.ctx.clock.now().toISOString();
    const due = await db
      .selectFrom('bff_events')
      .selectAll()
      .where('delivery_status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(BATCH)
      .execute();
    const until = new Date(Date.parse(now) + this.claimMs()).toISOString();
    const claimed: { row: EventRow; until: string }[] = [];
    for (const row of due) {
      const res = await db
        .updateTable('bff_events')
        .set({ claimed_until: until })
        .where('id', '=', row.id)
        .where('delivery_status', '=', 'pending')
        .where((eb) =>
          row.claimed_until === null
            ? eb('claimed_until', 'is', null)
            : eb('claimed_until', '=', row.claimed_until),
        )
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) claimed.push({ row, until });
    }
    return claimed;
  }

  private async send(row: EventRow): Promise<Sent> {
    const body = eventBody(row);
    const sentAt = new Date();
    const started = performance.now();
    try {
      const res = await this.ctx.fetch(this.ctx.config.eventsUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': row.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': this.signer!.sign(row.id, sentAt, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.ctx.config.eventsTimeoutMs),
      });
      // The answer's body is not ours to keep; read it so the connection is reused.
      await res.arrayBuffer().catch(() => undefined);
      const ok = res.status >= 200 && res.status < 300;
      return {
        status: res.status,
        error: ok ? null : `HTTP ${res.status}`,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const error =
        e.name === 'TimeoutError'
          ? 'timeout'
          : (e.cause?.code ?? e.name ?? 'network error').slice(0, 200);
      return { status: null, error, durationMs: Math.round(performance.now() - started) };
    }
  }

  private async deliver(row: EventRow, until: string): Promise<void> {
    const sent = await this.send(row);
    const now = this.ctx.clock.now();
    const failures = Number(row.attempts) + 1;
    const db = eventsDb(this.ctx.db);
    const previous = await db
      .selectFrom('bff_event_attempts')
      .select((eb) => eb.fn.max('attempt').as('n'))
      .where('event_id', '=', row.id)
      .executeTakeFirst();
    const attempt = Number(previous?.n ?? 0) + 1;
    let status: 'delivered' | 'pending' | 'failed';
    let nextAt: string | null = null;
    if (sent.error === null) status = 'delivered';
    else {
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

const deliveries = new WeakMap<object, EventDelivery>();

/** Mounts the delivery worker of a BFF (createBffApp). */
export function mountEventDelivery(ctx: BffContext): EventDelivery {
  const d = new EventDelivery(ctx);
  deliveries.set(ctx.db, d);
  deliveries.set(ctx, d);
  return d;
}

/**
 * The delivery worker of a BFF. Looked up by context or by its store, since a change records
 * its event through a context whose `db` is the transaction.
 */
export function eventDeliveryOf(ctx: BffContext): EventDelivery | undefined {
  return deliveries.get(ctx) ?? deliveries.get(ctx.db);
}
