import type { SessionStatus } from '../checkout-api';
import type { BffContext } from '../context';
import type { BffKysely } from '../db';
import { recordCancelEvent, recordSessionEvents } from '../events/record';
import {
  changesOf,
  columnsOf,
  perShape,
  precompiled,
  rowsOf,
  shapeOf,
} from '../../lib/precompiled';
import { isPostgres } from '../../lib/db';
import { atomically } from '../atomic';
import {
  claimWithAttempt,
  insertAttempt,
  SESSION_COLUMNS,
  type AttemptInsert,
  type AttemptRow,
  type SessionRow,
} from './store';

/** The statuses a session ends in: reaching one writes its event with it. */
const ENDS: readonly SessionStatus[] = ['succeeded', 'failed', 'expired'];

type Extra = Partial<Pick<SessionRow, 'failure_code' | 'attempts_used'>>;

/** At most this many statuses to move from (the rest of the list repeats the first). */
const FROM_SLOTS = 3;

type FromSlot = `from${0 | 1 | 2}`;
type MoveParams = Required<Extra> & { id: string; to: string; at: string } & Record<
    FromSlot,
    string
  >;

/**
 * The compare-and-set, one statement per set of extra columns it writes; a move to an end
 * returns the row, which its events are made of.
 */
const moveQ = perShape((shape) => {
  const build = (db: BffKysely, p: MoveParams) =>
    db
      .updateTable('checkout_sessions')
      .set({ status: p.to, updated_at: p.at, ...columnsOf<Extra>(shape, p) })
      .where('id', '=', p.id)
      .where('status', 'in', [p.from0, p.from1, p.from2]);
  return {
    live: precompiled(build),
    end: precompiled((db: BffKysely, p: MoveParams) => build(db, p).returning(SESSION_COLUMNS)),
  };
});

/**
 * Moves a session from one status to another only if it is still in `from`: the compare-and-set
 * that serializes concurrent pay calls. Resolves whether this caller won. A session that ends
 * (succeeded, failed, expired) gets its events (`checkout_session.*`, and for a subscription
 * `subscription.created` and its first `billing.paid`) in the same transaction: the change and
 * the merchant's news of it commit together or not at all.
 */
export async function transitionSession(
  ctx: BffContext,
  id: string,
  from: SessionStatus | readonly SessionStatus[],
  to: SessionStatus,
  at: Date,
  extra: Extra = {},
): Promise<boolean> {
  const fromList = typeof from === 'string' ? [from] : [...from];
  if (fromList.length === 0 || fromList.length > FROM_SLOTS) {
    throw new Error(`transitionSession: 1 to ${FROM_SLOTS} statuses to move from`);
  }
  const ends = ENDS.includes(to);
  const shape = shapeOf(extra);
  const [first] = fromList as [string];
  const params = {
    failure_code: null,
    attempts_used: 0,
    ...extra,
    id,
    to,
    at: at.toISOString(),
    from0: first,
    from1: fromList[1] ?? first,
    from2: fromList[2] ?? first,
  };
  const q = moveQ(shape);
  if (!ends) return (await changesOf(ctx.db, q.live(ctx.db, params))) === 1;
  return atomically(ctx, async (tx) => {
    const [row] = await rowsOf(tx.db, q.end(tx.db, params));
    if (!row) return false;
    await recordSessionEvents(tx, row, at);
    return true;
  });
}

/**
 * Claims an open session for a payment (`open → processing`) together with the attempt that
 * explains it: a session is never `processing` without its attempt. On PostgreSQL one
 * statement does both (one round trip, not four); on SQLite one transaction. Resolves whether
 * the session was claimed (no attempt is written when it was not).
 */
export async function claimForAttempt(
  ctx: BffContext,
  attempt: AttemptInsert,
  at: Date,
): Promise<boolean> {
  if (isPostgres(ctx.db)) return claimWithAttempt(ctx.db, attempt, at.toISOString());
  return atomically(ctx, async (tx) => {
    if (!(await transitionSession(tx, attempt.session_id, 'open', 'processing', at))) return false;
    await insertAttempt(tx.db, attempt);
    return true;
  });
}

/**
 * Records that the gateway canceled a payment (a confirmed `Canceled`). The attempt keeps its
 * `succeeded` status (the payment did happen) and gains `canceled_at`; the first notice wins
 * and writes `payment.canceled` with it. Resolves the attempt, or `undefined` when there is no
 * such attempt.
 */
export async function markAttemptCanceled(
  ctx: BffContext,
  attemptId: string,
  at: Date | string,
): Promise<AttemptRow | undefined> {
  const when = typeof at === 'string' ? at : at.toISOString();
  await atomically(ctx, async (tx) => {
    const res = await tx.db
      .updateTable('payment_attempts')
      .set({ canceled_at: when, updated_at: when })
      .where('id', '=', attemptId)
      .where('canceled_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return;
    await recordCancelEvent(tx, attemptId, ctx.clock.now());
  });
  return ctx.db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('id', '=', attemptId)
    .executeTakeFirst();
}
