import type { OffsetClock } from '../../lib/clock';

/**
 * How a run goes: `advance` (the clock is moved: everything that falls due is done before the
 * advance answers, in order) or `realtime` (the 200 ms tick and `runDueNow`: work that waits on
 * the network may be started and left to finish after the run, outside the lock).
 */
export type RunMode = 'advance' | 'realtime';

/**
 * Something that has work falling due on the sandbox clock: billings, retries, receipts,
 * overdue slips, webhook deliveries. `runDue(now)` must do everything due at or before `now`
 * and be safe to call again (running twice does nothing new). A task that leaves work running
 * after a real-time run reports it in `settled()`: an advance, a reset and a close wait for it.
 */
export interface DueTask {
  name: string;
  nextDueAt(): Promise<Date | null>;
  runDue(now: Date, mode: RunMode): Promise<void>;
  settled?(): Promise<void>;
}

/** Hard bound on steps of one advance, so a task that never settles cannot hang the sandbox. */
const MAX_STEPS = 2_000_000;

/** Told of a task that threw (its due time or its work); the run goes on without it. */
export type TaskErrorReport = (task: string, err: unknown) => void;

/**
 * Moves the clock and runs what fell due in time order across every registered task: each step
 * moves the clock to the earliest due instant and runs the task that owns it.
 *
 * A task that throws is left out for the rest of that run (the others still run, in order, and
 * the run ends) and tried again on the next run; its error is reported once until it succeeds or
 * fails differently, so a task failing on every 200 ms tick does not flood the log.
 */
export class Scheduler {
  private readonly tasks: DueTask[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  /** The last error message reported per failing task. */
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly clock: OffsetClock,
    private readonly persistOffset: (offsetMs: number) => Promise<void>,
    private readonly report: TaskErrorReport = () => undefined,
  ) {}

  register(task: DueTask): void {
    this.tasks.push(task);
  }

  /** Advances by `ms`, running all due work in order; serialized with other advances. */
  advance(ms: number): Promise<Date> {
    return this.exclusive(async () => {
      await this.settle();
      const target = new Date(this.clock.now().getTime() + ms);
      await this.runUntil(target, 'advance');
      this.clock.advanceTo(target);
      await this.persistOffset(this.clock.offset);
      return this.clock.now();
    });
  }

  /** Runs whatever is due at the current instant (used by real-time ticks). */
  runDueNow(): Promise<void> {
    return this.exclusive(() => this.runUntil(this.clock.now(), 'realtime'));
  }

  /** Waits for work real-time runs left going (deliveries waiting on a receiver). */
  async settle(): Promise<void> {
    await Promise.all(this.tasks.map((t) => t.settled?.()));
  }

  /** Runs `fn` with no advance or tick interleaved. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async runUntil(target: Date, mode: RunMode): Promise<void> {
    const failed = new Set<DueTask>();
    for (let step = 0; step < MAX_STEPS; step++) {
      let earliest: { task: DueTask; at: Date } | null = null;
      for (const task of this.tasks) {
        if (failed.has(task)) continue;
        let at: Date | null;
        try {
          at = await task.nextDueAt();
        } catch (err) {
          this.failed(task, err, failed);
          continue;
        }
        if (at && at.getTime() <= target.getTime() && (!earliest || at < earliest.at)) {
          earliest = { task, at };
        }
      }
      if (!earliest) return;
      this.clock.advanceTo(earliest.at);
      await this.persistOffset(this.clock.offset);
      try {
        await earliest.task.runDue(this.clock.now(), mode);
        this.failing.delete(earliest.task.name);
      } catch (err) {
        this.failed(earliest.task, err, failed);
      }
    }
    throw new Error('scheduler: too many steps in one advance');
  }

  private failed(task: DueTask, err: unknown, failed: Set<DueTask>): void {
    failed.add(task);
    const message = err instanceof Error ? err.message : String(err);
    if (this.failing.get(task.name) === message) return;
    this.failing.set(task.name, message);
    this.report(task.name, err);
  }
}
