import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayResult } from '../../server/bff/checkout-api';
import type { BffDb, BffKysely } from '../../server/bff/db';
import { releaseLease } from '../../server/bff/leases';
import { MAINTENANCE_LEASE, maintenanceRound } from '../../server/bff/maintenance';
import { eventsDb } from '../../server/bff/events/store';
import { webhookReceiverOf } from '../../server/bff/webhooks/receiver';
import { openDb, type OpenedDb } from '../../server/lib/db';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import { startBff, testDbUrl, type HttpAnswer, type TestBff } from './bff';
import { EVENTS_SECRET, startEventReceiver, type EventReceiver } from './event-receiver';
import { createPlanSession } from './plan-pay';
import { roundRobin, type RoundRobin } from './round-robin';
import { startSandbox, type TestSandbox } from './sandbox';

/** Basic auth the BFF's webhook receiver takes (its default credentials). */
export const WEBHOOK_AUTH = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;

/** Per-call gateway timeout of the model's BFF, and the latency fault that outlasts it. */
export const GATEWAY_TIMEOUT_MS = 1_500;
export const LATE_MS = 2_500;
/** How long the model's BFF waits for the merchant's events receiver to answer. */
export const EVENTS_TIMEOUT_MS = 400;

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
  transactionDate?: string;
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
  subscription_id: string | null;
  /** The trial a subscription began with (nothing charged at checkout), else null. */
  trial_days: number | null;
}

export interface GatewaySubscription {
  id: string;
  orderNumber: string;
  status: string;
}

/** The run's trial plan as created (its name, amount in reais, type and trial). */
export const TRIAL_PLAN = {
  name: 'Model trial',
  description: 'Model membership, a week free',
  amount: 29.9,
  planType: 'Monthly',
  trialDays: 7,
} as const;

/** How many BFF instances a run has, all on one store behind one load balancer. */
export const INSTANCES = 2;

/** One BFF instance of the world, with the name it leads maintenance rounds under. */
interface Instance {
  t: TestBff;
  name: string;
}

/**
 * The real stack a money-model run drives: a sandbox, and BFF instances on one store (a SQLite
 * file, or a PostgreSQL schema) behind a round-robin load balancer, each of which can be
 * stopped or killed and started again (same sandbox, business clocks kept). The gateway's
 * webhooks and the 3-D Secure returns go through the balancer; the model sends its own
 * requests to the instance its route picks. Everything the invariants need is read from the
 * sandbox's APIs and the store.
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
  /** The run's plan (R$ 49,90 a month, two retries of a first billing waiting on funds). */
  planId = '';
  /** A second plan, R$ 29,90 a month after a 7-day trial, two retries of a billing. */
  trialPlanId = '';
  planSessions: ModelSession[] = [];
  readonly instances: Instance[] = [];
  /** The merchant's events endpoint every instance delivers to (test/support/money-delivery.ts). */
  receiver!: EventReceiver;
  /** Which instance each request of the current step goes to: bit k for its k-th request. */
  private route = 0;
  private hop = 0;
  private started = 0;
  private constructor(
    readonly sandbox: TestSandbox,
    private readonly lb: RoundRobin,
    /** The store as the model reads it (on SQLite also the instances' own handle). */
    private readonly store: OpenedDb<BffDb>,
    private readonly dir: string,
    /** Whether the gateway's own webhooks reach the BFF (else the resolver alone tells). */
    readonly webhooks: boolean,
    private readonly storeUrl: string,
  ) {}

  static async start(webhooks: boolean): Promise<MoneyWorld> {
    const sandbox = await startSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'money-model-'));
    // A SQLite file, or with BFF_TEST_DATABASE_URL a PostgreSQL schema of its own: a restart
    // opens the same store.
    const storeUrl = process.env.BFF_TEST_DATABASE_URL
      ? await testDbUrl(undefined)
      : join(dir, 'bff.sqlite');
    const w = new MoneyWorld(
      sandbox,
      await roundRobin(),
      await openDb<BffDb>({ url: storeUrl }),
      dir,
      webhooks,
      storeUrl,
    );
    w.receiver = await startEventReceiver();
    for (let i = 0; i < INSTANCES; i++) {
      w.instances.push(await w.startInstance(0));
      w.lb.targets.push(w.instances[i]!.t.url);
    }
    const key = await sandbox.call('GET', '/v1/cards/public-key');
    w.cardKey = (key.body as { key: string }).key;
    const plan = await sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Model monthly',
        description: 'Model membership',
        amount: 49.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
        attempts: 2,
      },
    });
    if (plan.status !== 200) throw new Error(`plan: ${plan.status}`);
    w.planId = plan.body as string;
    const trial = await sandbox.call('POST', '/v1/recurrences/plans', {
      body: { ...TRIAL_PLAN, paymentMethod: 'CreditCard', attempts: 2 },
    });
    if (trial.status !== 200) throw new Error(`trial plan: ${trial.status}`);
    w.trialPlanId = trial.body as string;
    if (webhooks) {
      const res = await sandbox.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
        body: { url: `${w.lb.url}/webhooks/gateway`, basicAuth: WEBHOOK_AUTH.slice(6) },
      });
      if (res.status !== 200) throw new Error(`webhook registration: ${res.status}`);
    }
    return w;
  }

  /**
   * A BFF instance on the world's store: on PostgreSQL with a pool of its own, as separate
   * processes would; on SQLite (one process only) on the world's handle, as in-process
   * instances share it. Its public URL is the balancer's, as behind a real one.
   */
  private async startInstance(offsetMs: number): Promise<Instance> {
    const pg = this.storeUrl.startsWith('postgres');
    const t = await startBff({
      sandbox: this.sandbox,
      ...(pg ? { dbUrl: this.storeUrl } : { deps: { db: this.store.db } }),
      gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
      config: {
        payRateLimitPerMinute: 100_000,
        publicUrl: this.lb.url,
        eventsUrl: this.receiver.url,
        eventsSecret: EVENTS_SECRET,
        eventsTimeoutMs: EVENTS_TIMEOUT_MS,
      },
    });
    t.clock.advance(offsetMs);
    return { t, name: `money-model-${++this.started}` };
  }

  /** The route of the next step's requests (bit k: the instance of its k-th request). */
  routeBy(bits: number): void {
    this.route = bits;
    this.hop = 0;
  }

  /** The instance the next request of this step goes to, by the step's route. */
  nextIndex(): number {
    return ((this.route >> (this.hop++ % 16)) & 1) % INSTANCES;
  }

  /** The instance the next request of this step goes to. */
  to(): TestBff {
    return this.instances[this.nextIndex()]!.t;
  }

  /** Any instance: for what sends no request (the clock, a pay body). */
  get t(): TestBff {
    return this.instances[0]!.t;
  }

  /** A session of the run's plan (or of `planId`, of `amount` cents) to start a run with. */
  async openPlanSession(planId = this.planId, amount = 4_990): Promise<void> {
    const s = await createPlanSession(this.to(), planId);
    this.planSessions.push({ id: s.id, secret: s.clientSecret, amount });
  }

  /** Sessions to start a run with (credit and debit, up to 3 installments). */
  async openSessions(amounts: number[]): Promise<void> {
    for (const amount of amounts) {
      const s = await this.to().createSession({
        amount,
        methods: ['credit', 'debit'],
        expiresInSeconds: 86_400,
      });
      this.sessions.push({ id: s.id, secret: s.clientSecret, amount });
    }
  }

  /**
   * Stops instance `index` (after its webhook work) and starts it again on the same store.
   * Stopped, it gives the maintenance lease up; killed, the lease it holds lapses.
   */
  async restart(index: number, graceful = true): Promise<void> {
    const old = this.instances[index]!;
    await webhookReceiverOf(old.t.bff.ctx).idle();
    if (graceful) await releaseLease(old.t.bff.ctx.db, MAINTENANCE_LEASE, old.name);
    this.oldLogs.push(...old.t.logs);
    await old.t.close();
    const fresh = await this.startInstance(old.t.clock.offset);
    this.instances[index] = fresh;
    this.lb.targets[this.lb.targets.indexOf(old.t.url)] = fresh.t.url;
  }

  async close(): Promise<void> {
    for (const { t } of this.instances) await webhookReceiverOf(t.bff.ctx).idle();
    for (const { t } of this.instances) await t.close();
    await this.receiver.close();
    await this.lb.close();
    await this.store.close();
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
    for (const { t } of this.instances) t.clock.advance(minutes * 60_000);
    const res = await this.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { minutes },
    });
    if (res.status !== 200) throw new Error(`sandbox clock: ${res.status}`);
    await this.round();
  }

  /** One maintenance round, unknown attempts looked up at once; then the webhook inbox. */
  async round(): Promise<void> {
    const { t, name } = this.instances[this.nextIndex()]!;
    await maintenanceRound(t.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
      intervalMs: 60_000,
      instance: name,
    });
    await this.inbox();
  }

  /** Every instance's webhook work done, then one instance works the inbox through. */
  async inbox(): Promise<void> {
    for (const { t } of this.instances) await webhookReceiverOf(t.bff.ctx).idle();
    await webhookReceiverOf(this.to().bff.ctx).processAll();
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

  /** Every subscription at the gateway (the run has only its plan's). */
  async subscriptions(): Promise<GatewaySubscription[]> {
    const out: GatewaySubscription[] = [];
    for (let page = 1; page <= 20; page++) {
      const res = await this.sandbox.call(
        'GET',
        `/v1/recurrences/subscriptions?orderBy=createdDate&limit=100&page=${page}`,
      );
      if (res.status !== 200) throw new Error(`subscriptions: ${res.status}`);
      const { items, total } = res.body as { items: GatewaySubscription[]; total: number };
      out.push(...items);
      if (out.length >= total || items.length === 0) break;
    }
    return out;
  }

  attempts(db: BffKysely = this.store.db): Promise<AttemptRowView[]> {
    return db
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
        'subscription_id',
        'trial_days',
      ])
      .orderBy('created_at')
      .execute();
  }

  sessionRows(db: BffKysely = this.store.db) {
    return db
      .selectFrom('checkout_sessions')
      .select(['id', 'status', 'failure_code', 'amount', 'reference_transaction', 'plan_id'])
      .execute();
  }

  events(db: BffKysely = this.store.db) {
    return eventsDb(db)
      .selectFrom('bff_events')
      .select(['id', 'type', 'session_id', 'data', 'delivery_status'])
      .execute();
  }

  /**
   * Attempts, sessions and events as of one instant. A BFF commits in the background (a
   * webhook linking a sale: attempt, session and event in one transaction); on PostgreSQL
   * three reads on three pool connections could each see another side of that commit, so
   * they share one repeatable-read transaction. On SQLite they are queued on the one handle.
   */
  async state() {
    const read = (db: BffKysely) =>
      Promise.all([this.attempts(db), this.sessionRows(db), this.events(db)]);
    if (!this.storeUrl.startsWith('postgres')) return read(this.store.db);
    return this.store.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => read(trx));
  }

  /** The session's attempts' ids, oldest first. */
  async attemptIds(sessionId: string): Promise<string[]> {
    return (await this.attempts()).filter((a) => a.session_id === sessionId).map((a) => a.id);
  }

  logs(): string[] {
    return [...this.oldLogs, ...this.instances.flatMap((i) => i.t.logs)];
  }

  /** Every row of every table of the BFF's store, as text. */
  async storeText(): Promise<string> {
    const { sql } = await import('kysely');
    const db = this.store.db;
    const list = this.storeUrl.startsWith('postgres')
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
