import { outsideTransactionScope } from '../../lib/db';
import type { CallbackRow } from '../callbacks/store';
import type { DueTask, RunMode } from '../clock/scheduler';
import type { SandboxKysely } from '../db';
import type { NotificationRow } from './store';

/** The two outboxes and their rows. */
interface Outboxes {
  webhook_notifications: NotificationRow;
  payment_callbacks: CallbackRow;
}

/**
 * The delivery task of an outbox (webhooks, `urlCallBack`), built so that waiting on a receiver
 * never holds the scheduler's lock:
 *
 * - an advance delivers inline, batch after batch: what fell due is delivered, and its outcome
 *   recorded (and so its retry scheduled), before the advance answers;
 * - a real-time run (tick, `runDueNow`) reads one due batch under the lock, then POSTs it and
 *   records the outcomes after the run has let the lock go. While that batch is out the task
 *   reports nothing due (no spin); when it is done, `done` asks for the next tick.
 *
 * Nothing is marked as claimed in the store: a crash mid-batch leaves the rows pending and due,
 * delivered again after a restart (at least once).
 */
export function outboxDeliveryTask<T extends keyof Outboxes>(opts: {
  name: string;
  db: SandboxKysely;
  table: T;
  /** The outbox's id column, the order among rows due at the same instant. */
  idColumn: 'movement_id' | 'id';
  /** Rows read per batch. */
  batch: number;
  /** POSTs the rows and records each outcome. */
  deliver(rows: Outboxes[T][], now: Date): Promise<void>;
  onError(err: unknown): void;
  /** A real-time batch is finished (the next tick may find more). */
  done(): void;
}): DueTask {
  // Both outboxes have `status` and `next_attempt_ms`: queried as one of them.
  const table = opts.table as 'payment_callbacks';
  const idColumn = opts.idColumn as 'id';
  const nextDueAt = async () => {
    const row = await opts.db
      .selectFrom(table)
      .select((eb) => eb.fn.min('next_attempt_ms').as('next'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.next === null || row?.next === undefined ? null : new Date(Number(row.next));
  };
  const dueBatch = async (now: Date) =>
    (await opts.db
      .selectFrom(table)
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_ms', '<=', now.getTime())
      .orderBy('next_attempt_ms')
      .orderBy(idColumn)
      .limit(opts.batch)
      .execute()) as unknown as Outboxes[T][];
  let running: Promise<void> | null = null;
  const runDue = async (now: Date, mode: RunMode): Promise<void> => {
    while (!running) {
      const rows = await dueBatch(now);
      if (rows.length === 0) return;
      if (mode === 'advance') {
        await opts.deliver(rows, now);
        continue;
      }
      // Started outside the caller's transaction scope: it runs after the caller has committed.
      running = outsideTransactionScope(() =>
        opts
          .deliver(rows, now)
          .catch(opts.onError)
          .finally(() => {
            running = null;
            opts.done();
          }),
      );
      return;
    }
  };
  return {
    name: opts.name,
    nextDueAt: () => (running ? Promise.resolve(null) : nextDueAt()),
    runDue,
    settled: async () => {
      while (running) await running;
    },
  };
}
