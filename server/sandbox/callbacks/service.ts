import { Hono } from 'hono';
import type { DueTask } from '../clock/scheduler';
import type { SandboxContext } from '../context';
import type { PaymentRecord } from '../events';
import { spIso } from '../reconciliation/calendar';
import { afterAttempt, DELIVERY_TIMEOUT_MS } from '../webhooks/retry';
import { outboxDeliveryTask } from '../webhooks/detached';
import { fetchTransport, httpTransport, type WebhookTransport } from '../webhooks/transport';
import type { CallbackRow } from './store';

/** `status` of a callback: every status change of the payment. */
export type CallbackStatus = 'Authorized' | 'Declined' | 'RefundApproved' | 'Canceled';

/**
 * The body POSTed to a payment's `urlCallBack` (the spec: "merchant callback URL for payment
 * flow updates", shape not shown; DESIGN §5). `amount` in cents, as the payment's.
 */
export interface PaymentCallback {
  paymentId: string;
  referenceTransaction: string | null;
  status: CallbackStatus;
  returnCode: string;
  nsu: string;
  authorizationCode: string;
  amount: number;
  moment: string;
}

const CONCURRENCY = 16;
const BATCH = 200;

/** Queues one callback when the payment named a URL (inside the caller's transaction). */
async function enqueue(
  ctx: SandboxContext,
  payment: PaymentRecord,
  status: CallbackStatus,
  returnCode: string,
  at: Date,
): Promise<void> {
  if (!payment.urlCallBack) return;
  const body: PaymentCallback = {
    paymentId: payment.paymentId,
    referenceTransaction: payment.referenceTransaction,
    status,
    returnCode,
    nsu: payment.nsu,
    authorizationCode: payment.authorizationCode,
    amount: payment.amount,
    moment: spIso(at),
  };
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('payment_callbacks')
    .values({
      payment_id: payment.paymentId,
      url: payment.urlCallBack,
      body: JSON.stringify(body),
      status: 'pending',
      attempts: 0,
      next_attempt_ms: now.getTime(),
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      created_at: now.toISOString(),
    })
    .execute();
}

async function attempt(transport: WebhookTransport, row: CallbackRow) {
  try {
    const code = await transport(
      row.url,
      { 'content-type': 'application/json' },
      row.body,
      DELIVERY_TIMEOUT_MS,
    );
    return { statusCode: code, error: null };
  } catch (err) {
    const e = err as Error;
    const code = (e.cause as { code?: unknown } | undefined)?.code;
    const error =
      e.name === 'TimeoutError'
        ? `no answer in ${DELIVERY_TIMEOUT_MS / 1000} s`
        : `${e.message}${typeof code === 'string' ? ` (${code})` : ''}`.slice(0, 300);
    return { statusCode: null, error };
  }
}

/**
 * Delivers due callbacks on the sandbox clock with the webhook schedule (a DueTask: the
 * webhooks' real-time tick and clock advances both run it, see `outboxDeliveryTask`), and
 * records each outcome.
 */
function deliveryTask(ctx: SandboxContext, transport: WebhookTransport): DueTask {
  const deliver = async (due: CallbackRow[], now: Date) => {
    const nowMs = now.getTime();
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const row = due[next++]!;
        const r = await attempt(transport, row);
        const attempts = row.attempts + 1;
        const { status, nextMs } = afterAttempt(r.statusCode, attempts, nowMs);
        await ctx.db
          .updateTable('payment_callbacks')
          .set({
            status,
            attempts,
            next_attempt_ms: nextMs,
            last_status_code: r.statusCode,
            last_error: r.error,
            delivered_at: status === 'delivered' ? now.toISOString() : null,
          })
          .where('id', '=', row.id)
          .where('status', '=', 'pending')
          .execute();
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  };
  return outboxDeliveryTask({
    name: 'callbacks.delivery',
    db: ctx.db,
    table: 'payment_callbacks',
    idColumn: 'id',
    batch: BATCH,
    deliver,
    onError: (err) =>
      ctx.logger.error({ err: { message: (err as Error).message } }, 'callback delivery failed'),
    // The webhooks' 200 ms tick picks up what is left.
    done: () => undefined,
  });
}

/**
 * `urlCallBack`: every status change of a payment that named one (authorized or declined,
 * refund approved, canceled) is POSTed there as JSON, from a durable outbox, with the
 * webhooks' retry schedule. Subscribes to the payment events and registers the delivery.
 */
export function registerCallbacks(ctx: SandboxContext): void {
  let transport: WebhookTransport;
  if (ctx.fetch === globalThis.fetch) {
    const t = httpTransport(CONCURRENCY);
    ctx.onClose(() => t.close());
    transport = t;
  } else {
    transport = fetchTransport(ctx.fetch);
  }
  ctx.events.on('payment.approved', (e) =>
    enqueue(ctx, e.payment, 'Authorized', '00', new Date(e.payment.authorizedAt)),
  );
  ctx.events.on('payment.declined', (e) =>
    enqueue(ctx, e.payment, 'Declined', e.payment.returnCode, new Date(e.payment.authorizedAt)),
  );
  ctx.events.on('payment.refund-approved', (e) =>
    enqueue(ctx, e.payment, 'RefundApproved', '00', new Date(e.at)),
  );
  ctx.events.on('payment.canceled', (e) =>
    enqueue(ctx, e.payment, 'Canceled', '00', new Date(e.at)),
  );
  ctx.scheduler.register(deliveryTask(ctx, transport));
}

/** `GET /__sandbox/callback-deliveries?paymentId`: the `urlCallBack` outbox, newest first. */
export function callbackControlRoutes(ctx: SandboxContext): Hono {
  return new Hono().get('/callback-deliveries', async (c) => {
    let q = ctx.db.selectFrom('payment_callbacks').selectAll();
    const paymentId = c.req.query('paymentId');
    if (paymentId) q = q.where('payment_id', '=', paymentId);
    const rows = await q.orderBy('id', 'desc').limit(100).execute();
    return c.json({
      items: rows.map((r) => ({
        id: r.id,
        paymentId: r.payment_id,
        url: r.url,
        status: r.status,
        attemptCount: r.attempts,
        nextAttemptAt:
          r.next_attempt_ms === null ? null : new Date(Number(r.next_attempt_ms)).toISOString(),
        lastStatusCode: r.last_status_code,
        lastError: r.last_error,
        deliveredAt: r.delivered_at,
        body: JSON.parse(r.body) as PaymentCallback,
      })),
    });
  });
}
