import type { SandboxContext } from './context';

/**
 * A bounded map kept per sandbox and emptied by a reset, for rows that never change once
 * written (access tokens, vaulted cards): a hit is then always current. Oldest out when full.
 */
export class ResetCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (!this.map.has(key) && this.map.size >= this.max) {
      this.map.delete(this.map.keys().next().value!);
    }
    this.map.set(key, value);
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
