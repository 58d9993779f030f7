import type { SandboxContext } from './context';

/**
 * A bounded map kept per sandbox and emptied by a reset, for rows that never change once
 * written (access tokens, vaulted cards): a hit is then always current. When full, the oldest
 * tenth goes.
 */
export class ResetCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (!this.map.has(key) && this.map.size >= this.max) this.evictOldest();
    this.map.set(key, value);
  }

  /**
   * Drops the oldest tenth in one pass. One key at a time made a cycling cache quadratic: V8
   * leaves a deleted Map entry as a hole until the table is rebuilt, and each
   * `keys().next()` walks every hole before the oldest live key (30,000 vaulted cards through
   * a 20,000-row cache: 6 s of a 50 s billing year).
   */
  private evictOldest(): void {
    let n = Math.ceil(this.max / 10);
    for (const k of this.map.keys()) {
      this.map.delete(k);
      if (--n <= 0) break;
    }
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

const caches = new WeakMap<SandboxContext, Map<string, ResetCache<unknown>>>();

/** The sandbox's cache called `name` (created on first use, cleared by every reset). */
export function resetCache<V>(ctx: SandboxContext, name: string, max: number): ResetCache<V> {
  let byName = caches.get(ctx);
  if (!byName) {
    const fresh = new Map<string, ResetCache<unknown>>();
    ctx.onReset(() => {
      for (const cache of fresh.values()) cache.clear();
    });
    caches.set(ctx, fresh);
    byName = fresh;
  }
  let cache = byName.get(name);
  if (!cache) {
    cache = new ResetCache<unknown>(max);
    byName.set(name, cache);
  }
  return cache as ResetCache<V>;
}
