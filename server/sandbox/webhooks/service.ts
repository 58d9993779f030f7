import { outsideTransactionScope } from '../../lib/db';
import type { DueTask } from '../clock/scheduler';
import type { SandboxContext } from '../context';
import { spIso } from '../reconciliation/calendar';
import { outboxDeliveryTask } from './detached';
import { SecretBox } from './secret-box';
import type { NotificationRow } from './store';
import { afterAttempt, DELIVERY_TIMEOUT_MS } from './retry';
import { fetchTransport, httpTransport, type WebhookTransport } from './transport';

export { afterAttempt, DELIVERY_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './retry';

/** Deliveries in flight at once (across accounts); the outbox is drained in batches. */
export const DELIVERY_CONCURRENCY = 128;
const BATCH = 2000;
/** Real-time tick: deliveries due "now" go out without anyone advancing the clock. */
export const TICK_MS = 200;

/** Notification `type`: every change is of the transaction status (spec "not shown"). */
export const NOTIFICATION_TYPE = 'TransactionStatus';
export type TransactionStatus = 'Authorized' | 'Canceled' | 'Blocked' | 'Paid';

/** The body POSTed to the registered URL: the spec's webhook notification. */
export interface WebhookNotification {
  movementId: number;
  nsu: string;
  codAuth: string;
  installmentNumber: number;
  moment: string;
  type: string;
  oldValue: string;
  newValue: string;
}

export interface NotifyInput {
  accountNumber: string;
  paymentId?: string | null;
  nsu: string;
  codAuth: string;
  installmentNumber: number;
  /** Empty for the first status of a transaction. */
  oldValue: TransactionStatus | '';
  newValue: TransactionStatus;
  /** Defaults to the sandbox clock. */
  moment?: Date;
}

export function notificationBody(row: NotificationRow): WebhookNotification {
  return {
    movementId: row.movement_id,
    nsu: row.nsu,
    codAuth: row.cod_auth,
    installmentNumber: row.installment_number,
    moment: row.moment,
    type: row.type,
    oldValue: row.old_value,
    newValue: row.new_value,
  };
}

const services = new WeakMap<SandboxContext, WebhookService>();

/** The webhook service of a sandbox (for other domains and tests). */
export function webhooksOf(ctx: SandboxContext): WebhookService {
  const s = services.get(ctx);
  if (!s) throw new Error('webhooks are not mounted on this sandbox');
  return s;
}

/**
 * Webhook subscriptions, the durable outbox and its delivery. Delivery runs on the sandbox
 * clock (a DueTask, so advancing the clock replays every retry in order) and in real time (a
 * 200 ms tick plus a kick right after new notifications).
 */
export class WebhookService {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private kicked = false;
  private closed = false;

  /** Accounts with a URL, read once; kept by set, delete and reset (each bumps `subscribedAt`). */
  private subscribed: Set<string> | null = null;
  private subscribedAt = 0;
  private readonly transport: WebhookTransport;
  private readonly closeTransport: () => void;

  private constructor(
    private readonly ctx: SandboxContext,
    private readonly box: SecretBox,
  ) {
    // An injected fetch (tests) is honoured; otherwise keep-alive node:http for throughput.
    if (ctx.fetch === globalThis.fetch) {
      const t = httpTransport(DELIVERY_CONCURRENCY);
      this.transport = t;
      this.closeTransport = () => t.close();
    } else {
      this.transport = fetchTransport(ctx.fetch);
      this.closeTransport = () => undefined;
    }
  }

  static async create(ctx: SandboxContext, kek: Buffer): Promise<WebhookService> {
    const service = new WebhookService(ctx, SecretBox.open(kek));
    services.set(ctx, service);
    ctx.onReset(() => service.forgetSubscribed());
    ctx.scheduler.register(service.dueTask());
    ctx.onClose(() => service.stop());
    return service;
  }

  /** Starts the real-time tick (`createSandboxApp` does; unit tests may not). */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.closeTransport();
  }

  private tick(): void {
    if (this.ticking || this.closed) return;
    this.ticking = this.ctx.scheduler
      .runDueNow()
      .catch((err: unknown) => {
        this.ctx.logger.error({ err: { message: (err as Error).message } }, 'webhook tick failed');
      })
      .finally(() => {
        this.ticking = null;
      });
  }

  /** Delivers soon without waiting for the next tick (not awaited: callers may hold the lock). */
  private kick(): void {
    if (this.kicked || this.closed || !this.timer) return;
    this.kicked = true;
    // Outside a caller's transaction scope: deliveries read the outbox once it is committed.
    outsideTransactionScope(() =>
      setImmediate(() => {
        this.kicked = false;
        this.tick();
      }),
    );
  }

  // ---- subscriptions ----

  private forgetSubscribed(): void {
    this.subscribed = null;
    this.subscribedAt++;
  }

  /** The accounts that have a URL (every payment asks, so it is kept in memory). */
  private async subscribedAccounts(): Promise<Set<string>> {
    if (this.subscribed) return this.subscribed;
    const at = this.subscribedAt;
    const rows = await this.ctx.db
      .selectFrom('webhook_subscriptions')
      .select('account_number')
      .execute();
    const set = new Set(rows.map((r) => r.account_number));
    // A set or delete that raced the read leaves the cache empty, to be read again.
    if (at === this.subscribedAt) this.subscribed = set;
    return set;
  }

  async setSubscription(accountNumber: string, url: string, basicAuth: string): Promise<void> {
    const now = this.ctx.clock.now().toISOString();
    const sealed = this.box.seal(basicAuth, accountNumber);
    await this.ctx.db
      .insertInto('webhook_subscriptions')
      .values({
        account_number: accountNumber,
        url,
        basic_auth_enc: sealed,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column('account_number').doUpdateSet({ url, basic_auth_enc: sealed, updated_at: now }),
      )
      .execute();
    this.forgetSubscribed();
  }

  async getSubscription(accountNumber: string): Promise<{ url: string } | null> {
    const row = await this.ctx.db
      .selectFrom('webhook_subscriptions')
      .select('url')
      .where('account_number', '=', accountNumber)
      .executeTakeFirst();
    return row ?? null;
  }

  /** Removes the URL; pending deliveries of the account stop (status `canceled`). */
  async deleteSubscription(accountNumber: string): Promise<{ url: string } | null> {
    const deleted = await this.ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('webhook_subscriptions')
        .select('url')
        .where('account_number', '=', accountNumber)
        .executeTakeFirst();
      if (!row) return null;
      await trx
        .deleteFrom('webhook_subscriptions')
        .where('account_number', '=', accountNumber)
        .execute();
      await trx
        .updateTable('webhook_notifications')
        .set({ status: 'canceled', next_attempt_ms: null, last_error: 'subscription deleted' })
        .where('account_number', '=', accountNumber)
        .where('status', '=', 'pending')
        .execute();
      return row;
    });
    this.forgetSubscribed();
    return deleted;
  }

  // ---- outbox ----

  /**
   * Queues notifications for accounts that have a URL (others have nowhere to go and are not
   * recorded). Returns the movementIds given, in order.
   */
  async notify(items: readonly NotifyInput[]): Promise<number[]> {
    if (items.length === 0) return [];
    const subscribed = await this.subscribedAccounts();
    const now = this.ctx.clock.now();
    const rows = items
      .filter((i) => subscribed.has(i.accountNumber))
      .map((i) => ({
        account_number: i.accountNumber,
        payment_id: i.paymentId ?? null,
        nsu: i.nsu,
        cod_auth: i.codAuth,
        installment_number: i.installmentNumber,
        moment: spIso(i.moment ?? now),
        type: NOTIFICATION_TYPE,
        old_value: i.oldValue,
        new_value: i.newValue,
        status: 'pending',
        attempts: 0,
        next_attempt_ms: now.getTime(),
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: now.toISOString(),
      }));
    if (rows.length === 0) return [];
    const ids: number[] = [];
    await this.ctx.db.transaction().execute(async (trx) => {
      // Chunks keep each statement under SQLite's variable limit.
      for (let i = 0; i < rows.length; i += 500) {
        const res = await trx
          .insertInto('webhook_notifications')
          .values(rows.slice(i, i + 500))
          .returning('movement_id')
          .execute();
        ids.push(...res.map((r) => r.movement_id));
      }
    });
    this.kick();
    return ids;
  }

  /** Puts a notification back in the queue for an immediate attempt (a fresh schedule). */
  async redeliver(movementId: number): Promise<'ok' | 'not_found' | 'no_subscription'> {
    const row = await this.ctx.db
      .selectFrom('webhook_notifications')
      .select(['account_number'])
      .where('movement_id', '=', movementId)
      .executeTakeFirst();
    if (!row) return 'not_found';
    if (!(await this.getSubscription(row.account_number))) return 'no_subscription';
    await this.ctx.db
      .updateTable('webhook_notifications')
      .set({ status: 'pending', attempts: 0, next_attempt_ms: this.ctx.clock.now().getTime() })
      .where('movement_id', '=', movementId)
      .execute();
    this.kick();
    return 'ok';
  }

  dueTask(): DueTask {
    return outboxDeliveryTask({
      name: 'webhooks.delivery',
      db: this.ctx.db,
      table: 'webhook_notifications',
      idColumn: 'movement_id',
      batch: BATCH,
      deliver: (rows, now) => this.deliverBatch(rows, now),
      onError: (err) =>
        this.ctx.logger.error(
          { err: { message: (err as Error).message } },
          'webhook delivery failed',
        ),
      done: () => this.kick(),
    });
  }

  private async deliverBatch(rows: NotificationRow[], now: Date): Promise<void> {
    const accounts = [...new Set(rows.map((r) => r.account_number))];
    const subs = new Map<string, { url: string; auth: string }>();
    for (const s of await this.ctx.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('account_number', 'in', accounts)
      .execute()) {
      try {
        subs.set(s.account_number, {
          url: s.url,
          auth: this.box.open(s.basic_auth_enc, s.account_number),
        });
      } catch {
        this.ctx.logger.error(
          { accountNumber: s.account_number },
          'webhook credentials unreadable',
        );
      }
    }
    const results: Outcome[] = new Array<Outcome>(rows.length);
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const i = next++;
        const row = rows[i]!;
        const sub = subs.get(row.account_number);
        results[i] = sub ? await this.attempt(row, sub) : { kind: 'no_subscription' };
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELIVERY_CONCURRENCY, rows.length) }, worker));
    const nowIso = now.toISOString();
    const nowMs = now.getTime();
    // Results are written in few statements: attempts in multi-row inserts, outcomes grouped
    // so the common case (every notification answered 2xx) is one UPDATE per batch.
    const attemptRows: {
      movement_id: number;
      attempt: number;
      at: string;
      url: string;
      status_code: number | null;
      error: string | null;
      duration_ms: number;
    }[] = [];
    const groups = new Map<string, { set: Record<string, unknown>; ids: number[] }>();
    const group = (set: Record<string, unknown>, id: number) => {
      const key = JSON.stringify(set);
      const g = groups.get(key) ?? { set, ids: [] };
      g.ids.push(id);
      groups.set(key, g);
    };
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const r = results[i]!;
      if (r.kind === 'no_subscription') {
        group(
          { status: 'canceled', next_attempt_ms: null, last_error: 'no subscription' },
          row.movement_id,
        );
        continue;
      }
      const attempts = row.attempts + 1;
      attemptRows.push({
        movement_id: row.movement_id,
        attempt: attempts,
        at: nowIso,
        url: r.url,
        status_code: r.statusCode,
        error: r.error,
        duration_ms: r.durationMs,
      });
      const { status, nextMs } = afterAttempt(r.statusCode, attempts, nowMs);
      group(
        {
          status,
          attempts,
          next_attempt_ms: nextMs,
          last_status_code: r.statusCode,
          last_error: r.error,
          delivered_at: status === 'delivered' ? nowIso : null,
        },
        row.movement_id,
      );
    }
    await this.ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < attemptRows.length; i += 100) {
        await trx
          .insertInto('webhook_attempts')
          .values(attemptRows.slice(i, i + 100))
          .execute();
      }
      for (const { set, ids } of groups.values()) {
        for (let i = 0; i < ids.length; i += 500) {
          // Still pending: a subscription deleted while the POST was out stays canceled.
          await trx
            .updateTable('webhook_notifications')
            .set(set)
            .where('movement_id', 'in', ids.slice(i, i + 500))
            .where('status', '=', 'pending')
            .execute();
        }
      }
    });
  }

  private async attempt(
    row: NotificationRow,
    sub: { url: string; auth: string },
  ): Promise<Outcome> {
    const started = performance.now();
    try {
      const status = await this.transport(
        sub.url,
        { 'content-type': 'application/json', authorization: `Basic ${sub.auth}` },
        JSON.stringify(notificationBody(row)),
        DELIVERY_TIMEOUT_MS,
      );
      return {
        kind: 'answered',
        url: sub.url,
        statusCode: status,
        error: null,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      const e = err as Error;
      const code = (e.cause as { code?: unknown } | undefined)?.code;
      const error =
        e.name === 'TimeoutError'
          ? `no answer in ${DELIVERY_TIMEOUT_MS / 1000} s`
          : `${e.message}${typeof code === 'string' ? ` (${code})` : ''}`.slice(0, 300);
      return {
        kind: 'answered',
        url: sub.url,
        statusCode: null,
        error,
        durationMs: Math.round(performance.now() - started),
      };
    }
  }
}

type Outcome =
  | { kind: 'no_subscription' }
  | {
      kind: 'answered';
      url: string;
      statusCode: number | null;
      error: string | null;
      durationMs: number;
    };
