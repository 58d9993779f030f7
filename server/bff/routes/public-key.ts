import type { BffContext } from '../context';

/**
 * The gateway's card public key, cached for `publicKeyTtlMs` on the BFF clock. Concurrent
 * misses share one gateway call; a failed fetch is not cached.
 */
export function createPublicKeyCache(ctx: BffContext): { get(): Promise<string> } {
  let cached: { key: string; until: number } | undefined;
  let inflight: Promise<string> | undefined;
  return {
    get() {
      const now = ctx.clock.now().getTime();
      if (cached && now < cached.until) return Promise.resolve(cached.key);
      inflight ??= ctx.gateway
        .getPublicKey()
        .then((res) => {
          cached = { key: res.key, until: ctx.clock.now().getTime() + ctx.config.publicKeyTtlMs };
          return res.key;
        })
        .finally(() => {
          inflight = undefined;
        });
      return inflight;
    },
  };
}
