/** One source of time, injectable so tests and the sandbox control plane can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that runs with real time plus an offset that only grows when advanced.
 * The sandbox persists the offset so a restart keeps the simulated date.
 */
export class OffsetClock implements Clock {
  constructor(
    private offsetMs = 0,
    private readonly base: Clock = systemClock,
  ) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock forward by `ms` (never backward). */
  advance(ms: number): Date {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('a clock only moves forward');
    this.offsetMs += ms;
    return this.now();
  }

  /** Moves the clock to `to` when it lies ahead; a past instant leaves it where it is. */
  advanceTo(to: Date): Date {
    const delta = to.getTime() - this.now().getTime();
    if (delta > 0) this.offsetMs += delta;
    return this.now();
  }

  reset(offsetMs = 0): void {
    this.offsetMs = offsetMs;
  }
}

export const MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
