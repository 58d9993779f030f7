import type { Kysely } from 'kysely';
import type { BffDb } from '../../server/bff/db';
import { eventsDb, insertEvent } from '../../server/bff/events/store';
import { MS } from '../../server/lib/clock';

/**
 * Writes a `checkout_session.expired` event for session `sessionId`, to be delivered; with
 * `lastTry`, as the last try of its series (7 refused, the first 2.9 days before `at`).
 * Resolves its id.
 */
export async function dueEvent(
  db: Kysely<BffDb>,
  sessionId: string,
  at: Date,
  opts: { lastTry?: boolean } = {},
): Promise<string> {
  const id = (await insertEvent(db, {
    type: 'checkout_session.expired',
    data: { id: sessionId },
    sessionId,
    dedupKey: `checkout_session.expired:${sessionId}`,
    at,
    deliver: true,
  }))!;
  if (opts.lastTry) {
    await eventsDb(db)
      .updateTable('bff_events')
      .set({
        attempts: 7,
        total_attempts: 7,
        series_started_at: new Date(at.getTime() - 2.9 * MS.day).toISOString(),
      })
      .where('id', '=', id)
      .execute();
  }
  return id;
}
