import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import {
  claimEventQuery,
  claimLapseQuery,
  dueEventsQuery,
  insertEvent,
  nextRetryQuery,
} from '../../../server/bff/events/store';
import { isPostgres, migrate, openDb, type OpenedDb } from '../../../server/lib/db';
import { testDbUrl } from '../../support/bff';
import { linkEarlyNotificationsQuery } from '../../../server/bff/payments/ledger-link';
import {
  lookedSubscriptionAttemptsQuery,
  subscriptionAttemptsByReferenceQuery,
  markLookedUp,
  unlookedSubscriptionAttemptsQuery,
} from '../../../server/bff/payments/subscription-turns';
import { inboxDb } from '../../../server/bff/webhooks/store';
import {
  anySubscriptionAttemptQuery,
  claimWithAttemptQ,
  openSessionsDueQ,
  unknownAttemptsQuery,
  insertChallenge,
  staleChallengesQ,
} from '../../../server/bff/sessions/store';
import {
  attemptRow,
  SEED_AT,
  seedOpenSession,
  seedSessionWithAttempt,
} from '../../support/store-rows';

/**
 * The attempt's gateway ids (payment id, NSU) are indexed only once the gateway gave them: an
 * attempt waiting for its answer adds no index entry (on SQLite each index page a commit
 * touches is a WAL frame, about 10 µs of CPU), and a lookup by NSU still uses the index.
 */

const opened: OpenedDb<BffDb>[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** A session with one attempt, answered by the gateway (NSU given) or still waiting. */
async function seed(db: Kysely<BffDb>, id: string, nsu: string | null): Promise<void> {
  await seedSessionWithAttempt(
    db,
    id,
    nsu
      ? {
          status: 'succeeded',
          return_code: '00',
          payment_id: `pay-${nsu}`,
          nsu,
          authorization_code: '123456',
        }
      : {},
  );
}

async function migrated(): Promise<Kysely<BffDb>> {
  const o = await openDb<BffDb>({ url: await testDbUrl(undefined), poolSize: 1 });
  opened.push(o);
  await migrate(o.db, BFF_MIGRATIONS);
  return o.db;
}

/**
 * How the store would run a query: SQLite's query plan, or PostgreSQL's with no seq scan —
 * `generic`: the plan of a statement prepared by name once it stops re-planning per call
 * (`plan_cache_mode`), which cannot look at the parameters' values.
 */
async function planOf(
  db: Kysely<BffDb>,
  text: string,
  params: unknown[],
  opts: { generic?: boolean; seqScan?: boolean } = {},
): Promise<string> {
  if (!isPostgres(db)) {
    const r = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${text.replace(/\$\d+/g, '?')}`, params),
    );
    return r.rows.map((row) => row.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    // `seqScan`: the plan PostgreSQL would choose by itself, a scan of the table included.
    if (!opts.seqScan) await sql`set local enable_seqscan = off`.execute(trx);
    let explain = CompiledQuery.raw(`explain ${text}`, params);
    if (opts.generic) {
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await trx.executeQuery(CompiledQuery.raw(`prepare planned as ${text}`));
      // EXECUTE takes its arguments as literals, not bound parameters.
      const args = params.map((v) =>
        v === null
          ? 'null'
          : typeof v === 'number'
            ? String(v)
            : `'${String(v).replace(/'/g, "''")}'`,
      );
      explain = CompiledQuery.raw(`explain execute planned(${args.join(', ')})`);
    }
    const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(explain);
    if (opts.generic) await trx.executeQuery(CompiledQuery.raw('deallocate planned'));
    return r.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe('payment attempt indexes', () => {
  it('index an attempt by payment id and NSU only once it has them; NSU lookups use the index', async () => {
    const db = await migrated();
    await seed(db, 'cs_waiting', null);
    await seed(db, 'cs_answered', '000042');
    await seed(db, 'cs_also_waiting', null);

    if (isPostgres(db)) {
      const defs = await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes
        where schemaname = current_schema()
          and indexname in ('payment_attempts_payment_id', 'payment_attempts_nsu')`.execute(db);
      expect(defs.rows).toHaveLength(2);
      for (const d of defs.rows) expect(d.indexdef).toMatch(/WHERE \(\w+ IS NOT NULL\)/);
      expect(await planOf(db, NSU_LOOKUP, ['000042'])).toContain('payment_attempts_nsu');
      return;
    }
    const cells = await sql<{ name: string; cells: number }>`
      select name, sum(ncell) as cells from dbstat
      where name in ('payment_attempts_payment_id', 'payment_attempts_nsu') and pagetype = 'leaf'
      group by name order by name`.execute(db);
    expect(cells.rows).toEqual([
      { name: 'payment_attempts_nsu', cells: 1 },
      { name: 'payment_attempts_payment_id', cells: 1 },
    ]);
    expect(await planOf(db, NSU_LOOKUP, ['000042'])).toContain('payment_attempts_nsu');
  });
});

const NSU_LOOKUP = 'select id from payment_attempts where nsu = $1';

describe('event indexes', () => {
  it('GET /v1/events pages newest first from an index, with or without a type', async () => {
    const db = await migrated();
    for (let i = 0; i < 5; i++) {
      await insertEvent(db, {
        type: i % 2 ? 'checkout_session.failed' : 'checkout_session.succeeded',
        data: { i },
        sessionId: `cs_${i}`,
        dedupKey: `k${i}`,
        at: new Date(Date.parse(SEED_AT) + i * 1000),
        deliver: false,
      });
    }
    const page = 'order by created_at desc, id desc limit 11';
    const all = await planOf(db, `select * from bff_events ${page}`, []);
    const typed = await planOf(db, `select * from bff_events where type = $1 ${page}`, [
      'checkout_session.failed',
    ]);
    expect(all).toContain('bff_events_created');
    expect(typed).toContain('bff_events_type');
    if (!isPostgres(db)) {
      // The whole table sorted for every page is what the indexes are for.
      for (const plan of [all, typed]) expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});

describe('event delivery indexes', () => {
  /**
   * A delivery claim names its event and `delivery_status = 'pending'`, which also satisfied
   * the old predicate of `bff_events_due`: PostgreSQL walked every pending event to find one.
   */
  it('a claim finds its event by primary key; what is due and the next retry use bff_events_due', async () => {
    const db = await migrated();
    for (let i = 0; i < 200; i++) {
      await insertEvent(db, {
        type: 'checkout_session.succeeded',
        data: { i },
        sessionId: `cs_${i}`,
        dedupKey: `k${i}`,
        at: new Date(Date.parse(SEED_AT) + i * 1000),
        deliver: true,
      });
    }
    const [first] = await sql<{ id: string }>`select id from bff_events limit 1`
      .execute(db)
      .then((r) => r.rows);
    // These statements are not prepared by name: each call is planned with its values.
    const claim = claimEventQuery(
      db,
      { id: first!.id, claimed_until: null, total_attempts: 0 },
      SEED_AT,
    ).compile();
    const plan = await planOf(db, claim.sql, [...claim.parameters]);
    expect(plan).not.toContain('bff_events_due');
    expect(plan).toMatch(isPostgres(db) ? /bff_events_pkey/ : /sqlite_autoindex_bff_events_1/);
    for (const q of [
      dueEventsQuery(db, SEED_AT, 50).compile(),
      nextRetryQuery(db, SEED_AT).compile(),
      claimLapseQuery(db, SEED_AT).compile(),
    ]) {
      expect(await planOf(db, q.sql, [...q.parameters])).toContain('bff_events_due');
    }
  });
});

describe('session indexes', () => {
  /**
   * A claim names its session and `status = 'open'`, which also satisfies the predicate of
   * `checkout_sessions_open_expiry`. PostgreSQL, before its first ANALYZE of a table that
   * grew fast (a new store's first sale), costed a walk of every open session through that
   * index as cheap as the primary key, and took it: hundreds of buffers per claim in the
   * bench, growing with the open sessions.
   */
  it('a claim finds its session by primary key; the expiry sweep walks only open sessions', async () => {
    const db = await migrated();
    for (let i = 0; i < 200; i++) {
      await seedOpenSession(
        db,
        `cs_${String(i).padStart(4, '0')}`,
        `2026-11-25T1${i % 10}:00:00.000Z`,
      );
    }
    const sweep = openSessionsDueQ(db, { now: '2026-11-25T12:30:00.000Z', limit: 500 });
    expect(await planOf(db, sweep.sql, [...sweep.parameters])).toContain(
      'checkout_sessions_open_expiry',
    );
    if (!isPostgres(db)) return;
    const claim = claimWithAttemptQ(db, { ...attemptRow('pa_claim', 'cs_0100'), at: SEED_AT });
    for (const generic of [false, true]) {
      const plan = await planOf(db, claim.sql, [...claim.parameters], { generic });
      expect(plan).toContain('checkout_sessions_pkey');
      expect(plan).not.toContain('open_expiry');
      // Hot statements are prepared by name: their generic plan must keep the index too.
      expect(await planOf(db, sweep.sql, [...sweep.parameters], { generic })).toContain(
        'checkout_sessions_open_expiry',
      );
    }
  });
});

/**
 * Where the subscription attempts looked up before are read from: the order they were looked
 * up in, or the attempts still unknown (then sorted) — never every attempt ever made.
 */
const TURNS = /bff_attempt_lookups_turn|payment_attempts_unknown/;

describe('maintenance round indexes', () => {
  /**
   * Once a minute the round looks for attempts still unknown and for any subscription: it read
   * every attempt ever made for both (46 ms at 200,000 attempts on SQLite, the event loop
   * blocked). Each now has a partial index that only what it looks for enters.
   */
  it('finds unknown attempts and subscriptions from their indexes, and an attempt by id by its key', async () => {
    const db = await migrated();
    for (let i = 0; i < 60; i++) {
      const sub = i % 20 === 0 ? { subscription_id: `sub_${i}` } : {};
      await seedSessionWithAttempt(db, `cs_${i}`, i % 3 ? { status: 'succeeded', ...sub } : sub);
    }
    const anySub = anySubscriptionAttemptQuery(db).compile();
    // However old (the resolver reads them without an age cut-off), payments or subscriptions.
    for (const of of [undefined, 'payments', 'subscriptions'] as const) {
      const unknown = unknownAttemptsQuery(db, of).compile();
      expect(await planOf(db, unknown.sql, [...unknown.parameters])).toContain(
        'payment_attempts_unknown',
      );
    }
    // Subscription attempts by turns: the never looked up from the same index, the others
    // from when they were looked up, longest ago first.
    await markLookedUp(db, ['pa_cs_0', 'pa_cs_3'], new Date(SEED_AT));
    const unlooked = unlookedSubscriptionAttemptsQuery(db).compile();
    expect(await planOf(db, unlooked.sql, [...unlooked.parameters])).toContain(
      'payment_attempts_unknown',
    );
    const looked = lookedSubscriptionAttemptsQuery(db).compile();
    expect(await planOf(db, looked.sql, [...looked.parameters])).toMatch(TURNS);
    // Those an unfinished proof looks for, by order number.
    const wanted = subscriptionAttemptsByReferenceQuery(db, ['ref_a', 'ref_b']).compile();
    expect(await planOf(db, wanted.sql, [...wanted.parameters])).toContain(
      'payment_attempts_gateway_reference',
    );
    expect(await planOf(db, anySub.sql, [...anySub.parameters])).toContain(
      'payment_attempts_subscription',
    );
    if (isPostgres(db)) {
      // Thousands of attempts, none a subscription, never analyzed (a young store): left to
      // itself PostgreSQL must still take the index, not read the table hoping for a match.
      await sql`insert into checkout_sessions (id, client_secret_hash, status, amount, methods,
          max_installments, origin, attempts_used, created_at, updated_at, expires_at)
        select 'cs_bulk_' || g, 'f', 'succeeded', 1000, 'credit', 1, 'https://shop.example', 1,
          ${SEED_AT}, ${SEED_AT}, ${SEED_AT} from generate_series(1, 3000) g`.execute(db);
      await sql`insert into payment_attempts (id, session_id, method, status, amount,
          installments, created_at, updated_at)
        select 'pa_bulk_' || g, 'cs_bulk_' || g, 'credit', 'succeeded', 1000, 1, ${SEED_AT},
          ${SEED_AT} from generate_series(1, 3000) g`.execute(db);
      const natural = { seqScan: true };
      expect(await planOf(db, anySub.sql, [...anySub.parameters], natural)).toContain(
        'payment_attempts_subscription',
      );
      expect(await planOf(db, looked.sql, [...looked.parameters], natural)).toMatch(TURNS);
      expect(await planOf(db, wanted.sql, [...wanted.parameters], natural)).toContain(
        'payment_attempts_gateway_reference',
      );
      for (const q of [
        unknownAttemptsQuery(db),
        unknownAttemptsQuery(db, 'payments'),
        unknownAttemptsQuery(db, 'subscriptions'),
        unlookedSubscriptionAttemptsQuery(db),
      ]) {
        const unknown = q.compile();
        expect(await planOf(db, unknown.sql, [...unknown.parameters], natural)).toContain(
          'payment_attempts_unknown',
        );
      }
    }
    // A ledger sale linked to its attempt (payments/ledger-link.ts): one row by primary key.
    const link = db
      .updateTable('payment_attempts')
      .set({ status: 'succeeded' })
      .where('id', '=', 'pa_cs_3')
      .where('status', '=', 'unknown')
      .compile();
    const plan = await planOf(db, link.sql, [...link.parameters]);
    expect(plan).not.toContain('payment_attempts_unknown');
    expect(plan).toMatch(
      isPostgres(db) ? /payment_attempts_pkey/ : /sqlite_autoindex_payment_attempts_1/,
    );
  });
});

describe('challenge indexes', () => {
  it("a session's challenges are found by its id, not by reading every challenge", async () => {
    const db = await migrated();
    for (let i = 0; i < 30; i++) {
      await seedSessionWithAttempt(db, `cs_${i}`);
      await insertChallenge(db, {
        id: `ch_${i}`,
        session_id: `cs_${i}`,
        attempt_id: `pa_cs_${i}`,
        md: `md_${i}`,
        acs_url: 'https://acs.example/challenge',
        pareq: 'pareq',
        authentication_transaction_id: `auth_${i}`,
        code_3ds: '1',
        fingerprint: 'fp',
        cardholder_name: 'MARIA SILVA',
        brand: 'visa',
        installments: 1,
        window_size: '05',
        status: i % 2 ? 'pending' : 'completed',
        pares: null,
        created_at: SEED_AT,
        expires_at: SEED_AT,
        answered_at: null,
      });
    }
    // The shape of sessions/service.ts's and payments/pay.ts's lookups.
    const live = db
      .selectFrom('challenges')
      .select(['id', 'attempt_id', 'expires_at'])
      .where('session_id', '=', 'cs_7')
      .where('status', 'in', ['pending', 'answered'])
      .compile();
    expect(await planOf(db, live.sql, [...live.parameters])).toContain('challenges_session');
    // The maintenance round's challenges left past their time: from the live ones only.
    const stale = staleChallengesQ(db, { now: '2026-12-01T00:00:00.000Z', limit: 200 });
    for (const generic of [false, true]) {
      expect(await planOf(db, stale.sql, [...stale.parameters], { generic })).toContain(
        'challenges_live_expiry',
      );
    }
  });
});

describe('webhook inbox indexes', () => {
  it("a late-found payment finds its sale's early notifications without reading every unmatched one", async () => {
    const db = await migrated();
    const inbox = inboxDb(db);
    const row = (i: number, status: string) => ({
      movement_id: i,
      body_hash: `hash-${i}`,
      nsu: String(100_000 + i),
      cod_auth: `A${i}`,
      installment_number: 1,
      moment: SEED_AT,
      type: 'TransactionStatus',
      old_value: null,
      new_value: 'Authorized',
      status,
      duplicates: 0,
      received_at: SEED_AT,
      processed_at: SEED_AT,
      attempt_id: null,
      tries: 1,
      misses: 0,
      next_try_at: null,
      conflict: 0,
      claimed_by: null,
      claimed_until: null,
    });
    // Sales made elsewhere (unmatched) outnumber the rest.
    await inbox
      .insertInto('webhook_inbox')
      .values(Array.from({ length: 300 }, (_, i) => row(i, i % 10 ? 'unmatched' : 'processed')))
      .execute();
    const q = linkEarlyNotificationsQuery(
      db,
      'pa_late',
      { nsu: '100007', codAuth: 'A7' },
      new Date(SEED_AT),
    ).compile();
    const plan = await planOf(db, q.sql, [...q.parameters]);
    expect(plan).toContain('webhook_inbox_unmatched');
    expect(await planOf(db, q.sql, [...q.parameters], { generic: true })).toContain(
      'webhook_inbox_unmatched',
    );
    // It links the sale's notification, and only it.
    const linked = await db.executeQuery(q);
    expect(linked.rows).toEqual([{ new_value: 'Authorized', moment: SEED_AT }]);
  });
});
