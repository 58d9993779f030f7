/**
 * A fixed-window counter per key (a client address): `limit` hits per `windowMs`, in memory.
 * Memory is bounded: past `maxKeys` keys, ended windows are dropped, then the oldest keys, so
 * a flood of forged or rotating addresses costs a fixed amount of memory, never more.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly opts: { limit: number; windowMs: number; maxKeys?: number }) {}

  /** Counts one hit; answers whether it is allowed and, if not, how many seconds to wait. */
  hit(key: string, now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.opts.windowMs) {
      if (w) this.windows.delete(key);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      this.bound(now);
    }
    w.count++;
    if (w.count <= this.opts.limit) return { ok: true };
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + this.opts.windowMs - now) / 1000));
    return { ok: false, retryAfterSeconds };
  }

  /** Keys held now (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private bound(now: number): void {
    const max = this.opts.maxKeys ?? 10_000;
    if (this.windows.size <= max) return;
    for (const [k, v] of this.windows)
      if (now - v.start >= this.opts.windowMs) this.windows.delete(k);
    // Insertion order is window-start order: the first keys are the oldest windows.
    for (const k of this.windows.keys()) {
      if (this.windows.size <= max) break;
      this.windows.delete(k);
    }
  }
}
