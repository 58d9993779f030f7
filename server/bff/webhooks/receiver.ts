import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { migrate } from '../../lib/db';
import { errorResponse } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import type { BffContext, BffEnv } from '../context';
import { markAttemptCanceled } from '../sessions/store';
import { inboxDb, inboxMigrations, type InboxKysely, type InboxTables } from './store';

type InboxRow = InboxTables['webhook_inbox'];

/** The spec's webhook notification, as we accept it (sizes from the spec where it gives them). */
export const NotificationSchema = z.object({
  movementId: z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'is too large' }),
  nsu: z
    .string({ error: 'is required' })
    .min(1, { error: 'is required' })
    .max(100, { error: 'must be at most 100 characters' }),
  codAuth: z.string({ error: 'is required' }).max(30, { error: 'must be at most 30 characters' }),
  installmentNumber: z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .max(99, { error: 'must be at most 99' }),
  moment: z.string().datetime({ offset: true, error: 'must be an ISO 8601 datetime' }),
  type: z
    .string()
    .min(1, { error: 'is required' })
    .max(40, { error: 'must be at most 40 characters' }),
  oldValue: z.string().max(40, { error: 'must be at most 40 characters' }).nullish(),
  newValue: z
    .string()
    .min(1, { error: 'is required' })
    .max(40, { error: 'must be at most 40 characters' }),
});
export type Notification = z.infer<typeof NotificationSchema>;

const MAX_BODY_BYTES = 16 * 1024;

/**
 * `POST /webhooks/gateway`: the gateway's conciliation notifications. Answers within
 * milliseconds — authenticate (Basic, constant time), validate, store in the inbox, 200 — and
 * processes asynchronously. A duplicate movementId is acknowledged and not processed again;
 * 500 only when the notification cannot be stored (the gateway will retry).
 */
export class WebhookReceiver {
  readonly db: InboxKysely;
  /** Settles once the inbox table exists (its migration ran). */
  readonly ready: Promise<unknown>;
  private running: Promise<void> | null = null;
  private pending: {
    row: InboxRow;
    resolve: (v: 'stored' | 'duplicate') => void;
    reject: (e: unknown) => void;
  }[] = [];
  private flushing = false;
  private again = false;

  constructor(private readonly ctx: BffContext) {
    this.db = inboxDb(ctx.db);
    this.ready = migrate(ctx.db, inboxMigrations).then(() => this.kick());
    this.ready.catch((err: unknown) =>
      ctx.logger.error(
        { err: { message: (err as Error).message } },
        'webhook inbox migration failed',
      ),
    );
  }

  routes(): Hono<BffEnv> {
    return new Hono<BffEnv>().post('/gateway', (c) => this.receive(c));
  }

  private authorized(header: string | undefined): boolean {
    const { user, password } = this.ctx.config.webhook;
    const m = /^Basic ([A-Za-z0-9+/=]{1,1024})$/.exec(header ?? '');
    const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const u = colon >= 0 ? decoded.slice(0, colon) : '';
    const p = colon >= 0 ? decoded.slice(colon + 1) : '';
    // Both comparisons always run, so timing says nothing about which part was wrong.
    const userOk = constantTimeEqual(u, user);
    const passwordOk = constantTimeEqual(p, password);
    return m !== null && colon >= 0 && userOk && passwordOk;
  }

  async receive(c: Context<BffEnv>): Promise<Response> {
    const log = c.get('log') ?? this.ctx.logger;
    if (!this.authorized(c.req.header('authorization'))) {
      log.warn({ event: 'webhook.unauthorized' }, 'webhook refused: bad credentials');
      c.header('WWW-Authenticate', 'Basic realm="webhooks"');
      return errorResponse(c, 401, 'Authorization', 'Authorization: Basic credentials required');
    }
    const length = Number(c.req.header('content-length') ?? '0');
    if (length > MAX_BODY_BYTES) return errorResponse(c, 413, 'body', 'body: too large');
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      return errorResponse(c, 400, 'body', 'body: not valid JSON');
    }
    const parsed = NotificationSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const tag = issue.path.map(String).join('.') || 'body';
      log.warn({ event: 'webhook.invalid', tag }, 'webhook refused: invalid payload');
      return errorResponse(c, 400, tag, `${tag}: ${issue.message}`);
    }
    const n = parsed.data;
    let outcome: 'stored' | 'duplicate';
    try {
      await this.ready;
      outcome = await this.store({
        movement_id: n.movementId,
        nsu: n.nsu,
        cod_auth: n.codAuth,
        installment_number: n.installmentNumber,
        moment: n.moment,
        type: n.type,
        old_value: n.oldValue ?? null,
        new_value: n.newValue,
        status: 'received',
        duplicates: 0,
        received_at: this.ctx.clock.now().toISOString(),
        processed_at: null,
        attempt_id: null,
      });
    } catch (err) {
      log.error(
        {
          event: 'webhook.store_failed',
          movementId: n.movementId,
          err: { message: (err as Error).message },
        },
        'webhook not stored',
      );
      return errorResponse(c, 500, '', 'The notification could not be stored');
    }
    if (outcome === 'duplicate') {
      log.info({ event: 'webhook.duplicate', movementId: n.movementId }, 'webhook duplicate');
      return c.body(null, 200);
    }
    log.info(
      {
        event: 'webhook.received',
        movementId: n.movementId,
        newValue: n.newValue,
        installment: n.installmentNumber,
      },
      'webhook received',
    );
    this.kick();
    return c.body(null, 200);
  }

  /**
   * Group commit: notifications arriving together are inserted in one transaction, and each
   * request is answered once its row is durable. A movementId already stored (or repeated in
   * the same group) is a duplicate: counted, not stored again.
   */
  private store(row: InboxRow): Promise<'stored' | 'duplicate'> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.flushing = false;
    const first = new Map<number, InboxRow>();
    for (const p of batch) if (!first.has(p.row.movement_id)) first.set(p.row.movement_id, p.row);
    const inserted = new Set<number>();
    try {
      await this.db.transaction().execute(async (trx) => {
        const rows = [...first.values()];
        for (let i = 0; i < rows.length; i += 100) {
          const res = await trx
            .insertInto('webhook_inbox')
            .values(rows.slice(i, i + 100))
            .onConflict((oc) => oc.column('movement_id').doNothing())
            .returning('movement_id')
            .execute();
          for (const r of res) inserted.add(Number(r.movement_id));
        }
        const claimed = new Set<number>();
        for (const p of batch) {
          const id = p.row.movement_id;
          if (inserted.has(id) && !claimed.has(id)) {
            claimed.add(id);
            continue;
          }
          await trx
            .updateTable('webhook_inbox')
            .set((eb) => ({ duplicates: eb('duplicates', '+', 1) }))
            .where('movement_id', '=', id)
            .execute();
        }
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    const answered = new Set<number>();
    for (const p of batch) {
      const id = p.row.movement_id;
      if (inserted.has(id) && !answered.has(id)) {
        answered.add(id);
        p.resolve('stored');
      } else {
        p.resolve('duplicate');
      }
    }
  }

  /** Starts processing soon; one processor at a time, re-run if more arrived meanwhile. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.processAll())
      .catch((err: unknown) => {
        this.ctx.logger.error(
          { err: { message: (err as Error).message } },
          'webhook processing failed',
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

  /** Resolves when nothing is being processed (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    await this.ready;
    while (this.running) await this.running;
  }

  /** Applies every `received` notification in movement order, a batch at a time. */
  async processAll(): Promise<void> {
    for (;;) {
      const batch = await this.db
        .selectFrom('webhook_inbox')
        .selectAll()
        .where('status', '=', 'received')
        .orderBy('movement_id')
        .limit(500)
        .execute();
      if (batch.length === 0) return;
      await this.applyBatch(batch);
    }
  }

  private async applyBatch(batch: InboxRow[]): Promise<void> {
    const nsus = [...new Set(batch.map((r) => r.nsu))];
    const attempts = await this.ctx.db
      .selectFrom('payment_attempts')
      .select(['id', 'session_id', 'nsu', 'authorization_code'])
      .where('nsu', 'in', nsus)
      .orderBy('created_at', 'desc')
      .execute();
    // A payment is its NSU and authorization code together: an NSU alone can come round again
    // (a gateway's sequence, a sandbox reset) and must not touch an older session.
    const key = (nsu: string, codAuth: string) => `${nsu}\n${codAuth}`;
    const byIds = new Map<string, { id: string; session_id: string }>();
    for (const a of attempts) {
      const k = key(a.nsu ?? '', a.authorization_code ?? '');
      if (!byIds.has(k)) byIds.set(k, a);
    }
    const now = this.ctx.clock.now().toISOString();
    const outcomes: { row: InboxRow; attempt: { id: string; session_id: string } | undefined }[] =
      [];
    for (const row of batch) {
      let attempt = byIds.get(key(row.nsu, row.cod_auth));
      if (row.new_value === 'Canceled' && attempt) {
        // Marks the attempt canceled (first notice wins); the session shows it.
        attempt = await markAttemptCanceled(this.ctx.db, attempt.id, row.moment);
      }
      outcomes.push({ row, attempt });
    }
    await this.db.transaction().execute(async (trx) => {
      const unmatched = outcomes.filter((o) => !o.attempt).map((o) => o.row.movement_id);
      if (unmatched.length) {
        await trx
          .updateTable('webhook_inbox')
          .set({ status: 'unmatched', processed_at: now })
          .where('movement_id', 'in', unmatched)
          .where('status', '=', 'received')
          .execute();
      }
      for (const o of outcomes) {
        if (!o.attempt) continue;
        await trx
          .updateTable('webhook_inbox')
          .set({ status: 'processed', processed_at: now, attempt_id: o.attempt.id })
          .where('movement_id', '=', o.row.movement_id)
          .where('status', '=', 'received')
          .execute();
      }
    });
    for (const o of outcomes) {
      this.ctx.logger.info(
        {
          event: 'webhook.processed',
          movementId: o.row.movement_id,
          newValue: o.row.new_value,
          attemptId: o.attempt?.id ?? null,
          sessionId: o.attempt?.session_id ?? null,
        },
        o.attempt ? 'webhook applied' : 'webhook for a payment this BFF did not make',
      );
    }
  }
}

/** The receiver's routes, mounted at `/webhooks` by `createBffApp`. */
export function webhookReceiverRoutes(ctx: BffContext): Hono<BffEnv> {
  const receiver = new WebhookReceiver(ctx);
  receivers.set(ctx, receiver);
  return receiver.routes();
}

const receivers = new WeakMap<BffContext, WebhookReceiver>();

/** The receiver of a BFF (tests and benchmarks wait on `idle()`). */
export function webhookReceiverOf(ctx: BffContext): WebhookReceiver {
  const r = receivers.get(ctx);
  if (!r) throw new Error('the webhook receiver is not mounted');
  return r;
}
