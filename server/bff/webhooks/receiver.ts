import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { isUniqueViolation, migrate } from '../../lib/db';
import { errorResponse } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import type { BffContext, BffEnv } from '../context';
import { findAttemptByGatewayIds, markPaymentCanceled } from '../sessions/store';
import { inboxDb, inboxMigrations, type InboxKysely } from './store';

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
  private readonly ready: Promise<unknown>;
  private running: Promise<void> | null = null;
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
    try {
      await this.ready;
      await this.db
        .insertInto('webhook_inbox')
        .values({
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
        })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) {
        await this.db
          .updateTable('webhook_inbox')
          .set((eb) => ({ duplicates: eb('duplicates', '+', 1) }))
          .where('movement_id', '=', n.movementId)
          .execute()
          .catch(() => undefined);
        log.info({ event: 'webhook.duplicate', movementId: n.movementId }, 'webhook duplicate');
        return c.body(null, 200);
      }
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

  /** Applies every `received` notification in movement order. */
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
      for (const row of batch) await this.apply(row);
    }
  }

  private async apply(row: {
    movement_id: number;
    nsu: string;
    cod_auth: string;
    new_value: string;
    moment: string;
  }): Promise<void> {
    const ids = { nsu: row.nsu };
    const attempt =
      row.new_value === 'Canceled'
        ? await markPaymentCanceled(this.ctx.db, { ...ids, at: row.moment })
        : await findAttemptByGatewayIds(this.ctx.db, ids);
    await this.db
      .updateTable('webhook_inbox')
      .set({
        status: attempt ? 'processed' : 'unmatched',
        processed_at: this.ctx.clock.now().toISOString(),
        attempt_id: attempt?.id ?? null,
      })
      .where('movement_id', '=', row.movement_id)
      .where('status', '=', 'received')
      .execute();
    this.ctx.logger.info(
      {
        event: 'webhook.processed',
        movementId: row.movement_id,
        newValue: row.new_value,
        attemptId: attempt?.id ?? null,
        sessionId: attempt?.session_id ?? null,
      },
      attempt ? 'webhook applied' : 'webhook for a payment this BFF did not make',
    );
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
