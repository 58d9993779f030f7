import { describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { Scheduler, type DueTask } from '../../../../server/sandbox/clock/scheduler';

const T0 = Date.parse('2026-03-10T15:00:00Z');

/** A task due once at `T0 + dueInMs`, recording when it ran. */
function onceTask(name: string, dueInMs: number, ran: string[]): DueTask {
  let done = false;
  return {
    name,
    nextDueAt: () => Promise.resolve(done ? null : new Date(T0 + dueInMs)),
    runDue: (now) => {
      done = true;
      ran.push(`${name}@${now.getTime() - T0}`);
      return Promise.resolve();
    },
  };
}

function setup() {
  const clock = new OffsetClock(0, { now: () => new Date(T0) });
  const errors: string[] = [];
  const scheduler = new Scheduler(
    clock,
    () => Promise.resolve(),
    (task, err) => errors.push(`${task}: ${(err as Error).message}`),
  );
  return { clock, scheduler, errors };
}

describe('Scheduler', () => {
  it('a task whose work throws does not stop the others, and is reported once', async () => {
    const { scheduler, errors } = setup();
    const ran: string[] = [];
    let attempts = 0;
    scheduler.register(onceTask('first', 1_000, ran));
    scheduler.register({
      name: 'broken',
      nextDueAt: () => Promise.resolve(new Date(T0 + 2_000)),
      runDue: () => {
        attempts++;
        return Promise.reject(new RangeError('Invalid time value'));
      },
    });
    scheduler.register(onceTask('last', 3_000, ran));
    const now = await scheduler.advance(10_000);
    expect(now.getTime()).toBe(T0 + 10_000);
    expect(ran).toEqual(['first@1000', 'last@3000']);
    expect(attempts).toBe(1);
    // Still failing on the next runs: tried again, not reported again (no log every tick).
    await scheduler.runDueNow();
    await scheduler.advance(1_000);
    expect(attempts).toBe(3);
    expect(errors).toEqual(['broken: Invalid time value']);
  });

  it('a task whose due time cannot be read does not stop the others', async () => {
    const { scheduler, errors } = setup();
    const ran: string[] = [];
    scheduler.register({
      name: 'unreadable',
      nextDueAt: () => Promise.reject(new Error('no such table')),
      runDue: () => Promise.resolve(),
    });
    scheduler.register(onceTask('other', 5_000, ran));
    await scheduler.advance(6_000);
    expect(ran).toEqual(['other@5000']);
    expect(errors).toEqual(['unreadable: no such table']);
  });
});
