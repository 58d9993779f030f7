import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { sql } from 'kysely';
import { z } from 'zod';
import { isPostgres } from '../../lib/db';
import { errorResponse, nulFieldOf, nulRefused } from '../../lib/http';
import { constantTimeEqual } from '../../lib/secrets';
import type { BffContext, BffEnv } from '../context';
import { processNotification } from './confirm';
import { inboxDb, receivedRow, type InboxKysely, type InboxTables } from './store';

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

/** Rows claimed at a time: small, so instances share a burst. */
const CLAIM_BATCH = 25;

/**
 * `POST /webhooks/gateway`: the gateway's conciliation notifications. Answers within
 * milliseconds — authenticate (Basic, constant time), validate, store in the inbox, 200 — and
 * processes asynchronously: each notification is confirmed against the gateway's ledger before
 * it applies (webhooks/confirm.ts). A duplicate (same movementId, same body) is acknowledged
 * and not processed again; the same movementId with another body is kept beside the first and
 * logged; 500 only when the notification cannot be stored (the gateway will retry).
 */
export class WebhookReceiver {
  readonly db: InboxKysely;
  /** Settles once the first processing round has started (the store is migrated already). */
  readonly ready: Promise<unknown>;
  private running: Promise<void> | null = null;
  private pending: {
    row: InboxRow;
    resolve: (v: 'stored' | 'duplicate') => void;
    reject: (e: unknown) => void;
  }[] = [];
  private flushing = false;
  private again = false;

  /** This instance, as it signs its claims on inbox rows. */
  private readonly instance = `bff_${randomUUID()}`;

  constructor(private readonly ctx: BffContext) {
    this.db = inboxDb(ctx.db);
    // createBffApp migrated the whole store (BFF_MIGRATIONS) before building this.
    this.ready = Promise.resolve().then(() => this.kick());
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
    const nul = nulFieldOf(raw);
    if (nul !== null) {
      log.warn({ event: 'webhook.invalid', tag: nul || 'body' }, 'webhook refused: NUL character');
      return nulRefused(c, nul);
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
      const fields = {
        movement_id: n.movementId,
        nsu: n.nsu,
        cod_auth: n.codAuth,
        installment_number: n.installmentNumber,
        moment: n.moment,
        type: n.type,
        old_value: n.oldValue ?? null,
        new_value: n.newValue,
      };
      outcome = await this.store(receivedRow(fields, this.ctx.clock.now()));
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
   * request is answered once its row is durable. A movement already stored with the same body
   * (or repeated in the same group) is a duplicate: counted, not stored again. The same
   * movementId with another body is stored too and both rows are flagged `conflict`.
   *
   * Several instances may store the same notices at once (the gateway retrying on another
   * one): rows are written in (movement_id, body_hash) order, never arrival order, so two
   * transactions never wait for each other's rows crosswise (a deadlock: every request of the
   * losing batch answered 500). On PostgreSQL each movement is also locked for the
   * transaction first, so the conflict check sees what another instance stored of it: two
   * bodies of one movementId reaching two instances at once are both flagged.
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
    // At most FLUSH_MAX notices a transaction: on PostgreSQL each holds a lock until the commit
    // (the server's lock table is shared and bounded); the rest go in the next flush.
    const batch = this.pending.splice(0, FLUSH_MAX);
    if (this.pending.length > 0) setImmediate(() => void this.flush());
    else this.flushing = false;
    const k = (r: { movement_id: number | string; body_hash: string }) =>
      `${Number(r.movement_id)}\n${r.body_hash}`;
    // How often each (movement, body) came in this batch, in the order rows are written.
    const times = new Map<string, { row: InboxRow; n: number }>();
    for (const p of [...batch].sort((x, y) => byInboxKey(x.row, y.row))) {
      const seen = times.get(k(p.row));
      if (seen) seen.n++;
      else times.set(k(p.row), { row: p.row, n: 1 });
    }
    const rows = [...times.values()].map((t) => t.row);
    const inserted = new Set<string>();
    const conflicts = new Set<number>();
    try {
      await this.db.transaction().execute(async (trx) => {
        const movements = [...new Set(rows.map((r) => Number(r.movement_id)))];
        if (isPostgres(this.ctx.db)) await lockMovements(trx, movements);
        for (let i = 0; i < rows.length; i += 100) {
          const res = await trx
            .insertInto('webhook_inbox')
            .values(rows.slice(i, i + 100))
            .onConflict((oc) => oc.columns(['movement_id', 'body_hash']).doNothing())
            .returning(['movement_id', 'body_hash'])
            .execute();
          for (const r of res) inserted.add(k(r));
        }
        for (const [id, { row, n }] of times) {
          const again = inserted.has(id) ? n - 1 : n;
          if (again === 0) continue;
          await trx
            .updateTable('webhook_inbox')
            .set((eb) => ({ duplicates: eb('duplicates', '+', again) }))
            .where('movement_id', '=', row.movement_id)
            .where('body_hash', '=', row.body_hash)
            .execute();
        }
        const ids = [...new Set(rows.filter((r) => inserted.has(k(r))).map((r) => r.movement_id))];
        for (let i = 0; i < ids.length; i += 100) {
          const variants = await trx
            .selectFrom('webhook_inbox')
            .select(['movement_id', 'body_hash'])
            .where('movement_id', 'in', ids.slice(i, i + 100))
            .execute();
          const seen = new Map<number, number>();
          for (const v of variants) {
            seen.set(Number(v.movement_id), (seen.get(Number(v.movement_id)) ?? 0) + 1);
          }
          for (const [id, n] of seen) if (n > 1) conflicts.add(id);
        }
        if (conflicts.size > 0) {
          await trx
            .updateTable('webhook_inbox')
            .set({ conflict: 1 })
            .where(
              'movement_id',
              'in',
              [...conflicts].sort((x, y) => x - y),
            )
            .execute();
        }
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const id of conflicts) {
      this.ctx.logger.warn(
        { event: 'webhook.conflict', movementId: id },
        'the same movementId came with another body: both kept, each applies only once the gateway confirms it',
      );
    }
    const answered = new Set<string>();
    for (const p of batch) {
      const id = k(p.row);
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

  /** `idle()`, waited for at most `ms`: resolves whether processing ended in time. */
  async idleWithin(ms: number): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      this.idle().then(() => true),
      new Promise<false>((r) => (timeout = setTimeout(() => r(false), ms))),
    ]);
    clearTimeout(timeout);
    return ended;
  }

  /**
   * Confirms and applies every `received` notification that is due, in movement order. One
   * whose confirmation fails is tried again later (the maintenance round kicks the receiver).
   * Several instances on one store share the work: each claims a batch of rows for
   * `inboxClaimMs` (rows another instance holds are skipped; a dead instance's claim
   * lapses), and takes a row only if its claim still holds just before applying it.
   */
  async processAll(): Promise<void> {
    // A row still due after its turn (its retry instant already passed) waits for the next call.
    const seen = new Set<string>();
    const key = (r: InboxRow) => `${Number(r.movement_id)}\n${r.body_hash}`;
    for (;;) {
      const batch = await this.claimBatch();
      const fresh = batch.filter((r) => !seen.has(key(r)));
      if (fresh.length < batch.length) {
        await this.release(batch.filter((r) => seen.has(key(r))));
      }
      if (fresh.length === 0) return;
      for (const row of fresh) {
        seen.add(key(row));
        if (!(await this.renewClaim(row))) continue;
        try {
          await processNotification(this.ctx, row);
        } finally {
          await this.release([row]);
        }
      }
    }
  }

  /** Gives back this instance's claims on `rows`: due again, anyone may take them. */
  private async release(rows: readonly InboxRow[]): Promise<void> {
    for (const row of rows) {
      await this.db
        .updateTable('webhook_inbox')
        .set({ claimed_by: null, claimed_until: null })
        .where('movement_id', '=', row.movement_id)
        .where('body_hash', '=', row.body_hash)
        .where('claimed_by', '=', this.instance)
        .execute();
    }
  }

  /** Claims up to a batch of due, unclaimed rows for this instance, in movement order. */
  private async claimBatch(): Promise<InboxRow[]> {
    const now = this.ctx.clock.now();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + this.ctx.config.inboxClaimMs).toISOString();
    const postgres = isPostgres(this.ctx.db);
    const due = sql`
      select movement_id, body_hash from webhook_inbox
      where status = 'received'
        and (next_try_at is null or next_try_at <= ${nowIso})
        and (claimed_until is null or claimed_until < ${nowIso})
      order by movement_id, body_hash
      limit ${CLAIM_BATCH}
      ${postgres ? sql`for update skip locked` : sql``}`;
    const res = await sql<InboxRow>`
      update webhook_inbox set claimed_by = ${this.instance}, claimed_until = ${until}
      where (movement_id, body_hash) in (${due})
      returning *`.execute(this.db);
    return res.rows.sort((a, b) =>
      Number(a.movement_id) !== Number(b.movement_id)
        ? Number(a.movement_id) - Number(b.movement_id)
        : a.body_hash < b.body_hash
          ? -1
          : 1,
    );
  }

  /** True when this instance still holds the row's claim (now extended), and it is due. */
  private async renewClaim(row: InboxRow): Promise<boolean> {
    const now = this.ctx.clock.now();
    const res = await this.db
      .updateTable('webhook_inbox')
      .set({ claimed_until: new Date(now.getTime() + this.ctx.config.inboxClaimMs).toISOString() })
      .where('movement_id', '=', row.movement_id)
      .where('body_hash', '=', row.body_hash)
      .where('status', '=', 'received')
      .where('claimed_by', '=', this.instance)
      .where('claimed_until', '>=', now.toISOString())
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}

/** The receiver's routes, mounted at `/webhooks` by `createBffApp`. */
export function webhookReceiverRoutes(ctx: BffContext): Hono<BffEnv> {
  const receiver = new WebhookReceiver(ctx);
  receivers.set(ctx, receiver);
  return receiver.routes();
}

/** Notices stored in one transaction at most. */
const FLUSH_MAX = 200;

/** The order inbox rows are written in: (movement_id, body_hash), the same in every instance. */
function byInboxKey(
  x: { movement_id: number | string; body_hash: string },
  y: { movement_id: number | string; body_hash: string },
): number {
  const byMovement = Number(x.movement_id) - Number(y.movement_id);
  if (byMovement !== 0) return byMovement;
  return x.body_hash < y.body_hash ? -1 : x.body_hash > y.body_hash ? 1 : 0;
}

/**
 * PostgreSQL: locks `movements` until the transaction ends (advisory locks keyed by the
 * schema and the movementId, taken in key order so two batches never wait crosswise): another
 * instance storing one of them waits for this commit, then sees its rows.
 */
async function lockMovements(trx: InboxKysely, movements: number[]): Promise<void> {
  if (movements.length === 0) return;
  await sql`select pg_advisory_xact_lock(s.space, s.key) from (
      select distinct hashtext(current_schema() || ':webhook_inbox') as space,
        hashtext(m::text) as key
      from unnest(${movements}::bigint[]) as m
      order by key
    ) s order by s.key`.execute(trx);
}

const receivers = new WeakMap<BffContext, WebhookReceiver>();

/** The receiver of a BFF (tests and benchmarks wait on `idle()`). */
export function webhookReceiverOf(ctx: BffContext): WebhookReceiver {
  const r = receivers.get(ctx);
  if (!r) throw new Error('the webhook receiver is not mounted');
  return r;
}
