import type { PaymentMethod } from '../checkout-api';
import { scrubWal } from '../../lib/db';
import { afterCommit } from '../after-commit';
import { sql, type Selectable } from 'kysely';
import { changesOf, columnList, everyColumn, precompiled, rowsOf } from '../../lib/precompiled';
import type { BffDb, BffKysely } from '../db';

export type SessionRow = Selectable<BffDb['checkout_sessions']>;
export type AttemptRow = Selectable<BffDb['payment_attempts']>;
export type ChallengeRow = Selectable<BffDb['challenges']>;
export type AttemptInsert = BffDb['payment_attempts'];

export type AttemptStatus = 'succeeded' | 'declined' | 'failed' | 'unknown' | 'challenge';

export function sessionMethods(row: SessionRow): PaymentMethod[] {
  return row.methods.split(',').filter((m): m is PaymentMethod => m === 'credit' || m === 'debit');
}

// ---------------------------------------------------------------- sessions

export async function insertSession(db: BffKysely, row: BffDb['checkout_sessions']): Promise<void> {
  await db.insertInto('checkout_sessions').values(row).execute();
}

export const SESSION_COLUMNS = columnList<SessionRow>({
  id: true,
  client_secret_hash: true,
  status: true,
  amount: true,
  methods: true,
  max_installments: true,
  reference_transaction: true,
  customer_json: true,
  origin: true,
  plan_id: true,
  plan_json: true,
  frame_accept: true,
  failure_code: true,
  attempts_used: true,
  created_at: true,
  updated_at: true,
  expires_at: true,
  metadata_json: true,
});

const findSessionQ = precompiled((db: BffKysely, p: { id: string }) =>
  db.selectFrom('checkout_sessions').select(SESSION_COLUMNS).where('id', '=', p.id),
);

export async function findSession(db: BffKysely, id: string): Promise<SessionRow | undefined> {
  return (await rowsOf(db, findSessionQ(db, { id })))[0];
}

export async function setFrameAccept(db: BffKysely, id: string, accept: string): Promise<void> {
  await db
    .updateTable('checkout_sessions')
    .set({ frame_accept: accept.slice(0, 255) })
    .where('id', '=', id)
    .execute();
}

/**
 * Open sessions whose time ran out (the maintenance round's expiry sweep), at most `limit`.
 * The status is written into the statement, not bound: only then can the store prove the
 * query stays within `checkout_sessions_open_expiry` (a partial index) and walk just that.
 */
export const openSessionsDueQ = precompiled((db: BffKysely, p: { now: string; limit: number }) =>
  db
    .selectFrom('checkout_sessions')
    .select('id')
    .where('status', '=', sql.lit('open'))
    .where('expires_at', '<=', p.now)
    .limit(p.limit),
);

/**
 * The sessions of challenges left unanswered or uncompleted past their time, oldest first, at
 * most `limit` (the maintenance round). Literal statuses: `challenges_live_expiry` holds
 * only these, and a bound parameter would keep PostgreSQL from matching its predicate.
 */
export const staleChallengesQ = precompiled((db: BffKysely, p: { now: string; limit: number }) =>
  db
    .selectFrom('challenges')
    .select('session_id')
    .where('status', 'in', [sql.lit('pending'), sql.lit('answered')])
    .where('expires_at', '<=', p.now)
    .orderBy('expires_at')
    .limit(p.limit),
);

// ---------------------------------------------------------------- attempts

const ATTEMPT_COLUMNS = {
  id: true,
  session_id: true,
  method: true,
  status: true,
  failure_code: true,
  return_code: true,
  payment_id: true,
  nsu: true,
  authorization_code: true,
  subscription_id: true,
  amount: true,
  installments: true,
  created_at: true,
  updated_at: true,
  canceled_at: true,
  gateway_reference: true,
  billing_id: true,
  billing_status: true,
  billing_amount: true,
  card_brand: true,
  card_last4: true,
  subscription_canceled_json: true,
  trial_days: true,
} as const;

export const ATTEMPT_COLUMN_LIST = columnList<AttemptRow>(ATTEMPT_COLUMNS);

const insertAttemptQ = precompiled((db: BffKysely, p: BffDb['payment_attempts']) =>
  db.insertInto('payment_attempts').values(everyColumn(p, ATTEMPT_COLUMNS)),
);

export async function insertAttempt(db: BffKysely, row: BffDb['payment_attempts']): Promise<void> {
  await db.executeQuery(insertAttemptQ(db, row));
}

/** The numeric columns of an attempt: parameters in a SELECT list need their type named. */
const ATTEMPT_CASTS: Partial<Record<keyof AttemptRow, string>> = {
  amount: 'bigint',
  installments: 'integer',
  billing_amount: 'bigint',
};

/**
 * PostgreSQL: the claim of an open session (`open → processing`) and the insert of its attempt
 * as one statement (a data-modifying `WITH`), atomic without a transaction. Use
 * `claimForAttempt` (sessions/transition.ts), which picks this or a transaction.
 */
export const claimWithAttemptQ = precompiled(
  (db: BffKysely, p: BffDb['payment_attempts'] & { at: string }) => ({
    compile: () =>
      sql`with moved as (
          update checkout_sessions set status = 'processing', updated_at = ${p.at}
          where id = ${p.session_id} and status = 'open' returning id)
        insert into payment_attempts (${sql.join(ATTEMPT_COLUMN_LIST.map((c) => sql.ref(c)))})
        select ${sql.join(
          ATTEMPT_COLUMN_LIST.map((c) =>
            ATTEMPT_CASTS[c] ? sql`cast(${p[c]} as ${sql.raw(ATTEMPT_CASTS[c])})` : sql`${p[c]}`,
          ),
        )} from moved`.compile(db),
  }),
);

export async function claimWithAttempt(
  db: BffKysely,
  attempt: BffDb['payment_attempts'],
  at: string,
): Promise<boolean> {
  return (await changesOf(db, claimWithAttemptQ(db, { ...attempt, at }))) === 1;
}

export async function updateAttempt(
  db: BffKysely,
  id: string,
  patch: Partial<Omit<AttemptRow, 'id' | 'session_id'>>,
): Promise<void> {
  await db.updateTable('payment_attempts').set(patch).where('id', '=', id).execute();
}

/** The attempt statuses a gateway answer settles from: the attempt still waits for its word. */
export const IN_FLIGHT: readonly AttemptStatus[] = ['unknown', 'challenge'];

/**
 * `updateAttempt` for an attempt still in flight (`IN_FLIGHT`). False when another path settled
 * it while its gateway call ran — a notification confirmed against the ledger, the resolver —
 * whose word, taken from the gateway's ledger, then stands.
 */
export async function updateAttemptInFlight(
  db: BffKysely,
  id: string,
  patch: Partial<Omit<AttemptRow, 'id' | 'session_id'>>,
): Promise<boolean> {
  const res = await db
    .updateTable('payment_attempts')
    .set(patch)
    .where('id', '=', id)
    .where('status', 'in', IN_FLIGHT)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function findAttempt(db: BffKysely, id: string): Promise<AttemptRow | undefined> {
  return db.selectFrom('payment_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

const listAttemptsQ = precompiled((db: BffKysely, p: { sessionId: string }) =>
  db
    .selectFrom('payment_attempts')
    .select(ATTEMPT_COLUMN_LIST)
    .where('session_id', '=', p.sessionId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc'),
);

export async function listAttempts(db: BffKysely, sessionId: string): Promise<AttemptRow[]> {
  return rowsOf(db, listAttemptsQ(db, { sessionId }));
}

export async function findSucceededAttempt(
  db: BffKysely,
  sessionId: string,
): Promise<AttemptRow | undefined> {
  return db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('status', '=', 'succeeded')
    .executeTakeFirst();
}

/** What the resolver reads of an unknown attempt and its session. */
export const UNKNOWN_ATTEMPT_COLUMNS = [
  'a.id',
  'a.session_id',
  'a.amount',
  'a.created_at',
  'a.updated_at',
  'a.gateway_reference',
  's.plan_id',
  's.status as session_status',
] as const;

/**
 * The resolver's candidates (payments/resolver.ts): attempts still `unknown`, however old, the
 * oldest `limit`, with their session's plan and status; `of` picks payments (no plan) or
 * subscriptions only. Answered from `payment_attempts_unknown`, which holds only the attempts
 * waiting for an answer: a maintenance round costs the same after a million payments as after
 * ten.
 */
export function unknownAttemptsQuery(
  db: BffKysely,
  of?: 'payments' | 'subscriptions',
  limit = 200,
) {
  const q = db
    .selectFrom('payment_attempts as a')
    .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
    .select(UNKNOWN_ATTEMPT_COLUMNS)
    .where('a.status', '=', sql.lit('unknown'))
    // No age cut-off: every instant is after ''. The range implies the index's predicate
    // (`created_at is not null`) on both dialects, and SQLite searches a partial index only
    // for a range of it: without one it took the references' index and sorted every row.
    .where('a.created_at', '>', sql.lit(''))
    // Attempts made before references named one attempt cannot be proven: left alone.
    .where('a.gateway_reference', 'is not', null)
    .where('s.status', 'in', ['pending', 'processing'])
    .orderBy('a.created_at')
    .limit(limit);
  if (!of) return q;
  return q.where('s.plan_id', of === 'payments' ? 'is' : 'is not', null);
}

/**
 * Whether any attempt made a subscription, from `payment_attempts_subscription`. The ORDER BY
 * is what the index gives for free: without it PostgreSQL, on a table not analyzed yet, read
 * the whole table hoping to stop at an early match (26 ms at 300,000 attempts, none a
 * subscription).
 */
export function anySubscriptionAttemptQuery(db: BffKysely) {
  return db
    .selectFrom('payment_attempts')
    .select('subscription_id')
    .where('subscription_id', 'is not', null)
    .orderBy('subscription_id')
    .limit(1);
}

// ---------------------------------------------------------------- challenges

export async function insertChallenge(db: BffKysely, row: BffDb['challenges']): Promise<void> {
  await db.insertInto('challenges').values(row).execute();
}

export async function findChallenge(db: BffKysely, id: string): Promise<ChallengeRow | undefined> {
  return db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Stores the ACS answer once: only a `pending` challenge accepts it. Resolves whether it did. */
export async function storePares(
  db: BffKysely,
  id: string,
  pares: string,
  at: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('challenges')
    .set({ pares, status: 'answered', answered_at: at.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Moves a challenge between statuses if still in `from`; clears the PaRes when it ends, and
 * scrubs the WAL of it (inside a transaction, once it commits).
 */
export async function transitionChallenge(
  db: BffKysely,
  id: string,
  from: readonly string[],
  to: 'completed' | 'canceled' | 'expired',
): Promise<boolean> {
  const res = await db
    .updateTable('challenges')
    .set({ status: to, pares: null })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  if (!afterCommit(db, 'scrub wal', (c) => scrubWal(c.db))) scrubWal(db);
  return true;
}
