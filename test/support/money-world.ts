import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayResult } from '../../server/bff/checkout-api';
import { maintenanceRound } from '../../server/bff/maintenance';
import { eventsDb } from '../../server/bff/events/store';
import { webhookReceiverOf } from '../../server/bff/webhooks/receiver';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import { startBff, testDbUrl, type HttpAnswer, type TestBff } from './bff';
import { startSandbox, type TestSandbox } from './sandbox';

/** Basic auth the BFF's webhook receiver takes (its default credentials). */
export const WEBHOOK_AUTH = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;

/** Per-call gateway timeout of the model's BFF, and the latency fault that outlasts it. */
export const GATEWAY_TIMEOUT_MS = 1_500;
export const LATE_MS = 2_500;

/** What the shopper was told for one attempt (a pay, or a challenge's completion). */
export interface ShopperAnswer {
  sessionId: string;
  attemptId: string;
  step: 'pay' | 'complete';
  result: PayResult;
}

/** An Idempotency-Key already used for a pay, with its body and first answer. */
export interface UsedKey {
  sessionId: string;
  secret: string;
  key: string;
  body: unknown;
  first: { status: number; body: unknown };
  /** When it was first used, by the BFF's clock. */
  at: number;
}

export interface ModelSession {
  id: string;
  secret: string;
  amount: number;
}

export interface LedgerSale {
  nsu: string;
  codAuth: string | null;
  transactionReference: string | null;
  transactionStatus: string;
  transactionPaymentIdWeb?: string;
  amount: string;
}

export interface AttemptRowView {
  id: string;
  session_id: string;
  status: string;
  failure_code: string | null;
  gateway_reference: string | null;
  nsu: string | null;
  amount: number;
  canceled_at: string | null;
}

/**
 * The real stack a money-model run drives: a sandbox, and a BFF on a SQLite file that can be
 * stopped and started again on the same file (same sandbox, business clocks kept). Everything
 * the invariants need is read from the sandbox's APIs and the BFF's store.
 */
export class MoneyWorld {
  sessions: ModelSession[] = [];
  answers: ShopperAnswer[] = [];
  keys: UsedKey[] = [];
  /** The last session created under an Idempotency-Key. */
  lastSessionKey: { key: string; body: { amount: number }; id: string; at: number } | undefined;
  /** Card numbers and ciphertexts sent: none may reach a log line or a stored row. */
  secrets = new Set<string>();
  /** Real time before which the sandbox may still finish a delayed call. */
  busyUntil = 0;
  /** Log lines of BFFs already stopped. */
  oldLogs: string[] = [];
  movement = 900_000_000;
  cardKey = '';
  private constructor(
    readonly sandbox: TestSandbox,
    public t: TestBff,
    private readonly dir: string,
    /** Whether the gateway's own webhooks reach the BFF (else the resolver alone tells). */
    readonly webhooks: boolean,
    private readonly store: string,
  ) {}

  static async start(webhooks: boolean): Promise<MoneyWorld> {
    const sandbox = await startSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'money-model-'));
    // A SQLite file, or with BFF_TEST_DATABASE_URL a PostgreSQL schema of its own: a restart
    // opens the same store.
    const store = process.env.BFF_TEST_DATABASE_URL
      ? await testDbUrl(undefined)
      : join(dir, 'bff.sqlite');
    const w = new MoneyWorld(
      sandbox,
      await MoneyWorld.bff(sandbox, store, 0),
      dir,
      webhooks,
      store,
    );
    const key = await sandbox.call('GET', '/v1/cards/public-key');
    w.cardKey = (key.body as { key: string }).key;
    await w.register();
    return w;
  }

  private static async bff(sandbox: TestSandbox, store: string, offsetMs: number) {
    const t = await startBff({
      sandbox,
      dbUrl: store,
      gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
      config: { payRateLimitPerMinute: 100_000 },
    });
    t.clock.advance(offsetMs);
    return t;
  }

  /** The gateway's webhooks go to this BFF (its port changes on restart). */
  private async register(): Promise<void> {
    if (!this.webhooks) return;
    const res = await this.sandbox.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
      body: { url: `${this.t.url}/webhooks/gateway`, basicAuth: WEBHOOK_AUTH.slice(6) },
    });
    if (res.status !== 200) throw new Error(`webhook registration: ${res.status}`);
  }

  /** Sessions to start a run with (credit and debit, up to 3 installments). */
  async openSessions(amounts: number[]): Promise<void> {
    for (const amount of amounts) {
      const s = await this.t.createSession({
        amount,
        methods: ['credit', 'debit'],
        expiresInSeconds: 86_400,
      });
      this.sessions.push({ id: s.id, secret: s.clientSecret, amount });
    }
  }

  /** Stops the BFF (after its webhook work) and starts it again on the same store. */
  async restart(): Promise<void> {
    await webhookReceiverOf(this.t.bff.ctx).idle();
    const offset = this.t.clock.offset;
    this.oldLogs.push(...this.t.logs);
    await this.t.close();
    this.t = await MoneyWorld.bff(this.sandbox, this.store, offset);
    await this.register();
  }

  async close(): Promise<void> {
    await webhookReceiverOf(this.t.bff.ctx).idle();
    await this.t.close();
    await this.sandbox.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Waits until no delayed gateway call can still change the sandbox. */
  async quiet(): Promise<void> {
    const wait = this.busyUntil - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  /** Both business clocks move on (the BFF's and the sandbox's), then a maintenance round. */
  async advance(minutes: number): Promise<void> {
    await this.quiet();
    this.t.clock.advance(minutes * 60_000);
    const res = await this.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { minutes },
    });
    if (res.status !== 200) throw new Error(`sandbox clock: ${res.status}`);
    await this.round();
  }

  /** One maintenance round, unknown attempts looked up at once; then the webhook inbox. */
  async round(): Promise<void> {
    await maintenanceRound(this.t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
      intervalMs: 60_000,
      instance: 'money-model',
    });
    await this.inbox();
  }

  async inbox(): Promise<void> {
    const receiver = webhookReceiverOf(this.t.bff.ctx);
    await receiver.idle();
    await receiver.processAll();
  }

  async fault(path: string, kind: 'latency' | '500' | 'drop'): Promise<void> {
    const body =
      kind === 'latency'
        ? { latencyMs: LATE_MS }
        : kind === '500'
          ? { status: 500 }
          : { drop: true };
    const res = await this.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { method: 'POST', path, count: 1, ...body },
    });
    if (res.status !== 201) throw new Error(`fault: ${res.status}`);
    if (kind === 'latency') this.busyUntil = Date.now() + LATE_MS + 1_000;
  }

  /** Faults not taken yet are dropped; resolves how many were left. */
  async clearFaults(): Promise<number> {
    const list = await this.sandbox.call('GET', '/__sandbox/faults', { token: null });
    const left = Array.isArray(list.body)
      ? list.body.length
      : ((list.body as { items?: unknown[] }).items?.length ?? 0);
    await this.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    return left;
  }

  /** Every sale in the sandbox's reconciliation ledger, over every day the model can reach. */
  async ledger(): Promise<LedgerSale[]> {
    const clock = (await this.sandbox.call('GET', '/__sandbox/clock', { token: null })).body as {
      now: string;
    };
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const res = await this.sandbox.call(
      'POST',
      `/api/transaction/concil/search-by-operation-date?accountNumber=1001&startDate=${day(
        Date.now() - 2 * 86_400_000,
      )}&endDate=${day(Date.parse(clock.now) + 2 * 86_400_000)}`,
    );
    if (res.status !== 200) throw new Error(`ledger: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as LedgerSale[];
  }

  attempts(): Promise<AttemptRowView[]> {
    return this.t.bff.ctx.db
      .selectFrom('payment_attempts')
      .select([
        'id',
        'session_id',
        'status',
        'failure_code',
        'gateway_reference',
        'nsu',
        'amount',
        'canceled_at',
      ])
      .orderBy('created_at')
      .execute();
  }

  sessionRows() {
    return this.t.bff.ctx.db
      .selectFrom('checkout_sessions')
      .select(['id', 'status', 'failure_code', 'amount', 'reference_transaction'])
      .execute();
  }

  events() {
    return eventsDb(this.t.bff.ctx.db)
      .selectFrom('bff_events')
      .select(['id', 'type', 'session_id', 'data'])
      .execute();
  }

  /** The session's attempts' ids, oldest first. */
  async attemptIds(sessionId: string): Promise<string[]> {
    return (await this.attempts()).filter((a) => a.session_id === sessionId).map((a) => a.id);
  }

  logs(): string[] {
    return [...this.oldLogs, ...this.t.logs];
  }

  /** Every row of every table of the BFF's store, as text. */
  async storeText(): Promise<string> {
    const { sql } = await import('kysely');
    const db = this.t.bff.ctx.db;
    const list = this.store.startsWith('postgres')
      ? sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema()`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table'`;
    const tables = (await list.execute(db)).rows.map((x) => x.name);
    const out: string[] = [];
    for (const name of tables) {
      const rows = await sql`select * from ${sql.table(name)}`.execute(db);
      out.push(JSON.stringify(rows.rows));
    }
    return out.join('\n');
  }
}

/** A 5xx other than the gateway-trouble statuses the docs allow. */
export function unexpected5xx(res: HttpAnswer): boolean {
  return res.status >= 500 && ![502, 503, 504].includes(res.status);
}
