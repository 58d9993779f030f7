import { sql, type Kysely } from 'kysely';
import type { Migration } from '../lib/db';

/**
 * The BFF store. Every column type and statement here runs on SQLite and on PostgreSQL: plain
 * `varchar`/`text`/`integer`/`bigint`, ISO 8601 strings for instants, JSON kept as text.
 * No card data is ever stored: card facts live in the gateway; we keep ids and outcomes.
 */
export interface BffDb {
  checkout_sessions: {
    id: string;
    /** SHA-256 of the client secret; the secret itself is shown once, at creation. */
    client_secret_hash: string;
    status: string;
    amount: number;
    /** Comma-separated `credit,debit`. */
    methods: string;
    max_installments: number;
    reference_transaction: string | null;
    customer_json: string | null;
    origin: string;
    plan_id: string | null;
    /** The plan as shown to the shopper (`PublicSession.plan`), JSON; null without a plan. */
    plan_json: string | null;
    /** The Accept header of the frame page request, for 3DS device data. */
    frame_accept: string | null;
    /** Set when the session ends failed (a FailureCode). */
    failure_code: string | null;
    /** Attempts that count toward the cap (declines and card-level failures). */
    attempts_used: number;
    created_at: string;
    updated_at: string;
    expires_at: string;
    /** The merchant's `metadata` (string keys and values), JSON; null when none was given. */
    metadata_json: string | null;
  };
  payment_attempts: {
    id: string;
    session_id: string;
    method: string;
    /** `succeeded | declined | failed | unknown | challenge`. */
    status: string;
    failure_code: string | null;
    return_code: string | null;
    payment_id: string | null;
    nsu: string | null;
    authorization_code: string | null;
    /** Set when the attempt subscribed the card to the session's plan. */
    subscription_id: string | null;
    amount: number;
    installments: number;
    created_at: string;
    updated_at: string;
    /** Set when the gateway reports the payment canceled (webhook). */
    canceled_at: string | null;
    /**
     * What the BFF sent the gateway to find this attempt again: the payment's
     * `referenceTransaction` (merchant reference + attempt id), or a subscription's
     * `orderNumber`. Unique: a ledger row names one attempt.
     */
    gateway_reference: string | null;
    /** A subscription's first billing (its evidence): id, status and amount (cents). */
    billing_id: string | null;
    billing_status: string | null;
    billing_amount: number | null;
    /** The card's brand as the frame detected it, for receipts. */
    card_brand: string | null;
    /** The card number's last four digits, as the frame sent them (never more). */
    card_last4: string | null;
    /**
     * The merchant canceled the attempt's subscription (`POST /v1/subscriptions/:id/cancel`):
     * the `subscription.canceled` event's data, JSON, kept for when the checkout succeeds
     * after the cancel (its `subscription.created` comes first, then this).
     */
    subscription_canceled_json: string | null;
    /** The trial days a subscription began with (nothing charged at checkout); else null. */
    trial_days: number | null;
  };
  challenges: {
    id: string;
    session_id: string;
    attempt_id: string;
    /**
     * The random MD the launcher page posts to the ACS and the ACS posts back: a one-use
     * nonce binding the answer to this challenge (not a credential: it opens nothing else).
     */
    md: string;
    acs_url: string;
    pareq: string;
    authentication_transaction_id: string;
    code_3ds: string;
    fingerprint: string;
    cardholder_name: string;
    brand: string | null;
    installments: number;
    window_size: string;
    /** `pending | answered | completed | canceled | expired`. */
    status: string;
    /** The ACS answer, kept until the validate call, then cleared. */
    pares: string | null;
    created_at: string;
    expires_at: string;
    answered_at: string | null;
  };
  idempotency_keys: {
    session_id: string;
    scope: string;
    key: string;
    request_hash: string;
    /** `pending | done`. */
    state: string;
    response_status: number | null;
    response_body: string | null;
    created_at: string;
  };
  /**
   * Where the resolver's search for a subscription's first billing among the billings due the
   * day it was made stands (payments/first-billing-search.ts): the last page read and the
   * billings seen up to it. A row while the search is under way; deleted when it ends.
   */
  bff_due_day_reads: {
    subscription_id: string;
    pages: number;
    seen: number;
    updated_at: string;
  };
  /**
   * Where the resolver's unfinished proof of a plan's subscription attempts stands
   * (payments/plan-proof.ts): the order numbers it looks for, those found (id and creation
   * date, JSON), the last page read, when, and a hash of the plans its name search spans.
   */
  bff_plan_proofs: {
    plan_id: string;
    wanted_json: string;
    found_json: string;
    pages: number;
    seen: number;
    spans_hash: string | null;
    read_at: string;
  };
  /**
   * How many times an instance dropped the gateway's card key (a ciphertext refused, as after
   * a rotation: routes/public-key.ts), so that every instance reads it again. One row.
   */
  bff_card_key: {
    name: string;
    drops: number;
  };
  /**
   * When the resolver last looked each subscription attempt still unknown up: the rounds take
   * them by turns (payments/subscription-turns.ts).
   */
  bff_attempt_lookups: {
    attempt_id: string;
    looked_up_at: string;
  };
}

export type BffKysely = Kysely<BffDb>;

export const bffMigrations: Migration[] = [
  {
    name: 'bff_0001_checkout_sessions',
    async up(db) {
      await db.schema
        .createTable('checkout_sessions')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('client_secret_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('methods', 'varchar(20)', (c) => c.notNull())
        .addColumn('max_installments', 'integer', (c) => c.notNull())
        .addColumn('reference_transaction', 'varchar(50)')
        .addColumn('customer_json', 'text')
        .addColumn('origin', 'varchar(255)', (c) => c.notNull())
        .addColumn('plan_id', 'varchar(36)')
        .addColumn('frame_accept', 'varchar(255)')
        .addColumn('failure_code', 'varchar(40)')
        .addColumn('attempts_used', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('checkout_sessions_created')
        .on('checkout_sessions')
        .columns(['created_at'])
        .execute();
    },
  },
  {
    name: 'bff_0002_payment_attempts',
    async up(db) {
      await db.schema
        .createTable('payment_attempts')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('session_id', 'varchar(64)', (c) =>
          c.notNull().references('checkout_sessions.id'),
        )
        .addColumn('method', 'varchar(10)', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('failure_code', 'varchar(40)')
        .addColumn('return_code', 'varchar(10)')
        .addColumn('payment_id', 'varchar(64)')
        .addColumn('nsu', 'varchar(40)')
        .addColumn('authorization_code', 'varchar(40)')
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('canceled_at', 'varchar(40)')
        .execute();
      await db.schema
        .createIndex('payment_attempts_session')
        .on('payment_attempts')
        .columns(['session_id'])
        .execute();
      await db.schema
        .createIndex('payment_attempts_payment_id')
        .on('payment_attempts')
        .columns(['payment_id'])
        .execute();
      await db.schema
        .createIndex('payment_attempts_nsu')
        .on('payment_attempts')
        .columns(['nsu'])
        .execute();
      // Exactly one successful payment per session, whatever races above it.
      await sql`create unique index payment_attempts_one_success on payment_attempts (session_id) where status = 'succeeded'`.execute(
        db,
      );
    },
  },
  {
    name: 'bff_0003_challenges',
    async up(db) {
      await db.schema
        .createTable('challenges')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('session_id', 'varchar(64)', (c) =>
          c.notNull().references('checkout_sessions.id'),
        )
        .addColumn('attempt_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('md', 'varchar(64)', (c) => c.notNull())
        .addColumn('acs_url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('pareq', 'text', (c) => c.notNull())
        .addColumn('authentication_transaction_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('code_3ds', 'varchar(36)', (c) => c.notNull())
        .addColumn('fingerprint', 'varchar(36)', (c) => c.notNull())
        .addColumn('cardholder_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('brand', 'varchar(20)')
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('window_size', 'varchar(2)', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('pares', 'text')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('answered_at', 'varchar(40)')
        .execute();
    },
  },
  {
    name: 'bff_0004_idempotency_keys',
    async up(db) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('session_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('scope', 'varchar(20)', (c) => c.notNull())
        .addColumn('key', 'varchar(100)', (c) => c.notNull())
        .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('state', 'varchar(10)', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['session_id', 'scope', 'key'])
        .execute();
    },
  },
  {
    name: 'bff_0005_subscriptions',
    async up(db) {
      await db.schema.alterTable('checkout_sessions').addColumn('plan_json', 'text').execute();
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('subscription_id', 'varchar(36)')
        .execute();
    },
  },
  {
    name: 'bff_0006_attempt_references',
    async up(db) {
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('gateway_reference', 'varchar(50)')
        .execute();
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('billing_id', 'varchar(36)')
        .execute();
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('billing_status', 'varchar(20)')
        .execute();
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('billing_amount', 'bigint')
        .execute();
      // The reference sent to the gateway names one attempt.
      await sql`create unique index payment_attempts_gateway_reference on payment_attempts (gateway_reference) where gateway_reference is not null`.execute(
        db,
      );
      // A sale of the gateway's ledger (NSU + authorization code) is one attempt's, never two.
      await sql`create unique index payment_attempts_one_sale on payment_attempts (nsu, coalesce(authorization_code, '')) where status = 'succeeded' and nsu is not null`.execute(
        db,
      );
    },
  },
  {
    name: 'bff_0007_idempotency_keys_created',
    async up(db) {
      // The maintenance round prunes keys older than a day.
      await db.schema
        .createIndex('idempotency_keys_created')
        .on('idempotency_keys')
        .columns(['created_at'])
        .execute();
    },
  },
  {
    name: 'bff_0008_attempt_card',
    async up(db) {
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('card_brand', 'varchar(20)')
        .execute();
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('card_last4', 'varchar(4)')
        .execute();
    },
  },
  {
    name: 'bff_0009_session_metadata_and_expiry',
    async up(db) {
      await db.schema.alterTable('checkout_sessions').addColumn('metadata_json', 'text').execute();
      // The maintenance round expires open sessions whose time ran out.
      await sql`create index checkout_sessions_open_expiry on checkout_sessions (expires_at) where status = 'open'`.execute(
        db,
      );
    },
  },
  {
    name: 'bff_0010_attempt_gateway_ids_partial',
    async up(db) {
      // An attempt has no payment id or NSU until the gateway answers: indexing its NULLs cost
      // two index pages in the claim's commit and two more to move them in the outcome's (about
      // 10 µs of CPU each on SQLite). Lookups name a value, which implies IS NOT NULL, so both
      // dialects still use these.
      for (const column of ['payment_id', 'nsu'] as const) {
        await db.schema.dropIndex(`payment_attempts_${column}`).execute();
        await db.schema
          .createIndex(`payment_attempts_${column}`)
          .on('payment_attempts')
          .column(column)
          .where(sql.ref(column), 'is not', null)
          .execute();
      }
    },
  },
  {
    name: 'bff_0011_open_expiry_sweep_only',
    async up(db) {
      // A claim names its session and `status = 'open'`, which satisfied this index's old
      // predicate too: PostgreSQL, before the first ANALYZE of a table growing fast (a new
      // store's first sale), costed walking every open session through it as cheap as the
      // primary key and chose it (500–1,100 buffers per claim in the pay bench, growing with
      // the open sessions). `expires_at is not null` is implied only by a query that bounds
      // `expires_at` — the expiry sweep — so a lookup by id can no longer pick this index.
      await db.schema.dropIndex('checkout_sessions_open_expiry').execute();
      await sql`create index checkout_sessions_open_expiry on checkout_sessions (expires_at) where status = 'open' and expires_at is not null`.execute(
        db,
      );
    },
  },
  {
    name: 'bff_0012_maintenance_indexes',
    async up(db) {
      // The maintenance round, once a minute, read every attempt ever made twice: for attempts
      // still unknown (the resolver) and for any subscription (billing events). 46 ms at 200,000
      // attempts on SQLite, blocking the event loop, and growing with the history. Attempts
      // enter the first index only while they wait for the gateway's answer; `created_at is
      // not null` (always true) keeps a lookup of one attempt by id off it (see bff_0011).
      await sql`create index payment_attempts_unknown on payment_attempts (created_at) where status = 'unknown' and created_at is not null`.execute(
        db,
      );
      await db.schema
        .createIndex('payment_attempts_subscription')
        .on('payment_attempts')
        .column('subscription_id')
        .where(sql.ref('subscription_id'), 'is not', null)
        .execute();
    },
  },
  {
    name: 'bff_0013_challenges_by_session',
    async up(db) {
      // A session in `challenge` looks its challenges up on every frame request, pay and
      // merchant read (sessions/service.ts): without this, a read of every challenge ever
      // made, growing with each 3-D Secure payment.
      await db.schema
        .createIndex('challenges_session')
        .on('challenges')
        .column('session_id')
        .execute();
    },
  },
  {
    name: 'bff_0014_challenges_live_expiry',
    async up(db) {
      // The maintenance round ends challenges left past their time (a closed tab sends no
      // cancel): only the live ones are indexed, a few at any time however many were made.
      await sql`create index challenges_live_expiry on challenges (expires_at) where status in ('pending', 'answered')`.execute(
        db,
      );
    },
  },
  {
    name: 'bff_0015_attempt_subscription_canceled',
    async up(db) {
      await db.schema
        .alterTable('payment_attempts')
        .addColumn('subscription_canceled_json', 'text')
        .execute();
    },
  },
  {
    name: 'bff_0016_attempt_trial_days',
    async up(db) {
      await db.schema.alterTable('payment_attempts').addColumn('trial_days', 'integer').execute();
    },
  },
  {
    name: 'bff_0017_due_day_reads',
    async up(db) {
      // Kept per process before: a restart or a new leader read a busy day from page 1 again.
      await db.schema
        .createTable('bff_due_day_reads')
        .addColumn('subscription_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('pages', 'integer', (c) => c.notNull())
        .addColumn('seen', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'bff_0018_plan_proofs',
    async up(db) {
      // Kept per process before: a restart or a new leader proved a big plan from page 1 again.
      await db.schema
        .createTable('bff_plan_proofs')
        .addColumn('plan_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('wanted_json', 'text', (c) => c.notNull())
        .addColumn('found_json', 'text', (c) => c.notNull())
        .addColumn('pages', 'integer', (c) => c.notNull())
        .addColumn('seen', 'integer', (c) => c.notNull())
        .addColumn('spans_hash', 'varchar(64)')
        .addColumn('read_at', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'bff_0019_card_key_drops',
    async up(db) {
      // A refused ciphertext dropped the card key of one process: the others handed it out.
      await db.schema
        .createTable('bff_card_key')
        .addColumn('name', 'varchar(20)', (c) => c.primaryKey())
        .addColumn('drops', 'integer', (c) => c.notNull())
        .execute();
    },
  },
];
