import { sql } from 'kysely';
import type { Migration } from '../../lib/db';
import type { BffKysely } from '../db';
import { UNKNOWN_ATTEMPT_COLUMNS, unknownAttemptsQuery } from '../sessions/store';

/**
 * Subscription attempts whose outcome is unknown, however old, taken by turns. Their proof
 * reads their plan (not a dated ledger), and one that cannot progress (its plan unreadable or
 * gone, too big to prove in a round, a first billing not found yet) stays unknown round after
 * round: oldest first alone, enough of those would hold every round's batch and the attempts
 * behind them would never be looked at. So a round takes the oldest never looked up, then
 * those looked up longest ago, `SUBSCRIPTION_TURN` of each, and writes down when it looked
 * (`bff_attempt_lookups`, one row per attempt looked up and still unknown): whatever sits in
 * front, one looked up before comes again within ceil(n / SUBSCRIPTION_TURN) rounds, n the
 * attempts looked up before it.
 */

/** Subscription attempts a round takes at most of the never looked up, and of the others. */
export const SUBSCRIPTION_TURN = 100;

export const attemptLookupMigrations: Migration[] = [
  {
    name: 'bff_0020_attempt_lookups',
    async up(db) {
      // Subscription attempts used to be read within 7 days of their call only (lookbackMs):
      // after a week without rounds one stayed unknown for good, its subscription maybe live.
      await db.schema
        .createTable('bff_attempt_lookups')
        .addColumn('attempt_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('looked_up_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('bff_attempt_lookups_turn')
        .on('bff_attempt_lookups')
        .columns(['looked_up_at', 'attempt_id'])
        .execute();
    },
  },
];

/** Unknown subscription attempts never looked up, the oldest `limit`. */
export function unlookedSubscriptionAttemptsQuery(db: BffKysely, limit = SUBSCRIPTION_TURN) {
  return unknownAttemptsQuery(db, 'subscriptions', limit).where(({ not, exists, selectFrom }) =>
    not(
      exists(
        selectFrom('bff_attempt_lookups as l')
          .select('l.attempt_id')
          .whereRef('l.attempt_id', '=', 'a.id'),
      ),
    ),
  );
}

/** Unknown subscription attempts looked up before, the `limit` looked up longest ago. */
export function lookedSubscriptionAttemptsQuery(db: BffKysely, limit = SUBSCRIPTION_TURN) {
  return (
    db
      .selectFrom('bff_attempt_lookups as l')
      .innerJoin('payment_attempts as a', 'a.id', 'l.attempt_id')
      .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
      .select(UNKNOWN_ATTEMPT_COLUMNS)
      // A row is written for an attempt the first query gave only: one with a reference.
      .where('a.status', '=', sql.lit('unknown'))
      .where('a.created_at', '>', sql.lit(''))
      .where('s.status', 'in', ['pending', 'processing'])
      .where('s.plan_id', 'is not', null)
      // Every instant is after '': a range of the index, which SQLite needs to search it (as
      // in `unknownAttemptsQuery`) rather than scan every attempt.
      .where('l.looked_up_at', '>', sql.lit(''))
      .orderBy('l.looked_up_at')
      .orderBy('l.attempt_id')
      .limit(limit)
  );
}

/** Unknown subscription attempts whose order number is one of `references`. */
export function subscriptionAttemptsByReferenceQuery(db: BffKysely, references: string[]) {
  return db
    .selectFrom('payment_attempts as a')
    .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
    .select(UNKNOWN_ATTEMPT_COLUMNS)
    .where('a.gateway_reference', 'in', references)
    .where('a.status', '=', sql.lit('unknown'))
    .where('s.status', 'in', ['pending', 'processing'])
    .where('s.plan_id', 'is not', null);
}

/**
 * The unknown attempts an unfinished proof of their plan looks for (`bff_plan_proofs`). A proof
 * decides the attempts of the round that reads its last page only, then is deleted: taken every
 * round, those it began for are all there when it ends, whichever turns the round takes.
 * Bounded by the batches the proofs began with.
 */
async function provenAttempts(db: BffKysely) {
  const proofs = await db.selectFrom('bff_plan_proofs').select('wanted_json').execute();
  const references = [...new Set(proofs.flatMap((p) => JSON.parse(p.wanted_json) as string[]))];
  const out = [];
  for (let i = 0; i < references.length; i += SUBSCRIPTION_TURN) {
    const some = references.slice(i, i + SUBSCRIPTION_TURN);
    out.push(...(await subscriptionAttemptsByReferenceQuery(db, some).execute()));
  }
  return out;
}

/**
 * This round's subscription candidates: the oldest never looked up, then their turn's, and
 * those an unfinished proof looks for.
 */
export async function subscriptionCandidates(db: BffKysely, limit = SUBSCRIPTION_TURN) {
  const unlooked = await unlookedSubscriptionAttemptsQuery(db, limit).execute();
  const looked = await lookedSubscriptionAttemptsQuery(db, limit).execute();
  const proven = await provenAttempts(db);
  // Separate reads: one looked up in between (two leaders for a moment) comes once.
  const out = new Map<string, (typeof unlooked)[number]>();
  for (const a of [...unlooked, ...looked, ...proven]) if (!out.has(a.id)) out.set(a.id, a);
  return [...out.values()];
}

/**
 * Writes down that the round looks the attempts up now: before it does, so that one whose
 * look-up fails the round (a bug, the store down) waits its turn like the rest.
 */
export async function markLookedUp(db: BffKysely, ids: readonly string[], now: Date) {
  const at = now.toISOString();
  for (let i = 0; i < ids.length; i += SUBSCRIPTION_TURN) {
    const rows = ids.slice(i, i + SUBSCRIPTION_TURN).map((id) => ({
      attempt_id: id,
      looked_up_at: at,
    }));
    await db
      .insertInto('bff_attempt_lookups')
      .values(rows)
      .onConflict((oc) => oc.column('attempt_id').doUpdateSet({ looked_up_at: at }))
      .execute();
  }
}

/** Deletes the rows of attempts no longer unknown (settled by a round, a notification). */
export async function pruneAttemptLookups(db: BffKysely): Promise<void> {
  await db
    .deleteFrom('bff_attempt_lookups')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payment_attempts as a')
            .select('a.id')
            .whereRef('a.id', '=', 'bff_attempt_lookups.attempt_id')
            .where('a.status', '=', 'unknown'),
        ),
      ),
    )
    .execute();
}
