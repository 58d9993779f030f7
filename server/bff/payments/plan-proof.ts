import { createHash } from 'node:crypto';
import { MS } from '../../lib/clock';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { readPages, type PagesRead } from '../subscriptions/service';

/** Subscriptions and plans read per search page (the gateway's maximum). */
const PAGE = 100;
/** Pages of a plan's subscriptions read before an attempt is declared not to have happened. */
const PROOF_PAGES = 50;
/** How long a plan too big to read in one round waits before its next pages are read. */
const PROOF_RESUME_MS = 10 * MS.minute;

/** A subscription the proof found: what settling its attempt needs. */
export interface ProvenSubscription {
  id: string;
  /** When the gateway made it (its clock). */
  createdDate: string;
}

/**
 * The proof for a plan's attempts: the subscriptions of the plan read so far, newest first,
 * looking for the order numbers of the attempts whose calls had ended when it began
 * (`wanted`). Read to its end (`complete`), an order number not found did not happen. A plan
 * too big for one round is read on from where it stood in later rounds: subscriptions made
 * since push the others down, so nothing that was there when it began is skipped, and a
 * subscription made after it began is not wanted.
 */
export interface PlanListing extends PagesRead {
  wanted: ReadonlySet<string>;
  found: Map<string, ProvenSubscription>;
  /** When the last pages were read. */
  at: number;
  /** A hash of the plans the name search spans (`plansSpanned`) when the pages were read. */
  spans: string | null;
}

/**
 * The proof for the attempts of a plan (`PlanListing`), read `maxPages` pages further at most
 * once per round, and every `PROOF_RESUME_MS` while it is not complete (`payment.unproven` in
 * the log each time). Where an unfinished proof stands is a row of `bff_plan_proofs`: a
 * restart, or another instance taking the rounds over, reads on from there. The search filters
 * by plan name, so it asks for the plan's name now (a merchant may have renamed it) and keeps
 * that plan's subscriptions only.
 */
export async function planListing(
  ctx: BffContext,
  planId: string,
  wanted: () => Set<string>,
  round: Map<string, PlanListing>,
  maxPages = PROOF_PAGES,
  now: Date,
): Promise<PlanListing> {
  const known = round.get(planId);
  if (known) return known;
  const listing: PlanListing = (await storedListing(ctx.db, planId)) ?? {
    wanted: wanted(),
    found: new Map(),
    complete: false,
    pages: 0,
    seen: 0,
    at: 0,
    spans: null,
  };
  round.set(planId, listing);
  if (listing.pages > 0 && now.getTime() - listing.at < PROOF_RESUME_MS) return listing;
  const { name: planName } = await ctx.gateway.getPlan(planId, { timeoutMs: 10_000 });
  // A plan renamed since the last pages (this one, or another whose name held this one's)
  // takes subscriptions out of the listing: the rest move up, past pages read. Begin again.
  const spans = await plansSpanned(ctx, planName);
  if (spans === null || spans !== listing.spans) Object.assign(listing, { pages: 0, seen: 0 });
  listing.spans = spans;
  const read = await readPages(
    (page) =>
      ctx.gateway.searchSubscriptions(
        { planName, orderBy: '-createdDate', page, limit: PAGE },
        { timeoutMs: 10_000 },
      ),
    maxPages,
    (items) => {
      // A name search may also answer other plans whose names contain this one's.
      for (const sub of items) {
        if (sub.plan.id === planId && listing.wanted.has(sub.orderNumber)) {
          listing.found.set(sub.orderNumber, { id: sub.id, createdDate: sub.createdDate });
        }
      }
      return listing.found.size === listing.wanted.size;
    },
    listing,
  );
  Object.assign(listing, read, { at: now.getTime() });
  // Every wanted one found proves as much as the whole listing.
  if (listing.found.size === listing.wanted.size) listing.complete = true;
  if (listing.complete) {
    await ctx.db.deleteFrom('bff_plan_proofs').where('plan_id', '=', planId).execute();
  } else {
    await keepListing(ctx.db, planId, listing);
    ctx.logger.warn(
      { event: 'payment.unproven', planId, pages: listing.pages },
      'a plan has more subscriptions than one round reads: its attempts with no answer stay ' +
        'unknown while the rest are read, 10 minutes apart',
    );
  }
  return listing;
}

/** The unfinished proof of a plan kept in the store, if any. */
async function storedListing(db: BffKysely, planId: string): Promise<PlanListing | undefined> {
  const row = await db
    .selectFrom('bff_plan_proofs')
    .selectAll()
    .where('plan_id', '=', planId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    wanted: new Set(JSON.parse(row.wanted_json) as string[]),
    found: new Map(
      Object.entries(JSON.parse(row.found_json) as Record<string, ProvenSubscription>),
    ),
    complete: false,
    pages: Number(row.pages),
    seen: Number(row.seen),
    at: Date.parse(row.read_at),
    spans: row.spans_hash,
  };
}

/**
 * Keeps where an unfinished proof stands. Two leaders for a moment (a lease lost mid-round)
 * may each write theirs: either is a whole proof begun at some instant, and reading on from
 * either skips nothing.
 */
async function keepListing(db: BffKysely, planId: string, listing: PlanListing): Promise<void> {
  const row = {
    wanted_json: JSON.stringify([...listing.wanted]),
    found_json: JSON.stringify(Object.fromEntries(listing.found)),
    pages: listing.pages,
    seen: listing.seen,
    spans_hash: listing.spans,
    read_at: new Date(listing.at).toISOString(),
  };
  await db
    .insertInto('bff_plan_proofs')
    .values({ plan_id: planId, ...row })
    .onConflict((oc) => oc.column('plan_id').doUpdateSet(row))
    .execute();
}

/**
 * Deletes the proofs of plans with no attempt left unknown (settled another way meanwhile: a
 * notification): no round reads on, and a later attempt of the plan begins a proof of its own.
 */
export async function prunePlanProofs(db: BffKysely): Promise<void> {
  await db
    .deleteFrom('bff_plan_proofs')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payment_attempts as a')
            .innerJoin('checkout_sessions as s', 's.id', 'a.session_id')
            .select('a.id')
            .whereRef('s.plan_id', '=', 'bff_plan_proofs.plan_id')
            .where('a.status', '=', 'unknown'),
        ),
      ),
    )
    .execute();
}

/**
 * The plans a subscription search by `planName` spans (the name, and the ids of the plans
 * whose names contain it: the plan search matches names as the subscription search does), as
 * a SHA-256. Null past 10 pages of plans: too many to tell, so a proof begins again each time.
 */
async function plansSpanned(ctx: BffContext, planName: string): Promise<string | null> {
  const ids: string[] = [];
  const { complete } = await readPages(
    (page) => ctx.gateway.searchPlans({ name: planName, page, limit: PAGE }, { timeoutMs: 10_000 }),
    10,
    (items) => {
      for (const plan of items) ids.push(plan.id);
      return false;
    },
  );
  if (!complete) return null;
  return createHash('sha256')
    .update([planName, ...ids.sort()].join('\n'))
    .digest('hex');
}
