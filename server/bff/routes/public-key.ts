import type { Clock } from '../../lib/clock';
import type { BffGateway } from '../gateway-port';

export interface PublicKeyCache {
  /** The key: cached, or from one gateway call shared by concurrent misses. */
  get(): Promise<string>;
  /**
   * Forgets the cached key: the gateway refused a ciphertext made with it (a rotated key), so
   * the next read (the next frame load) asks the gateway again.
   */
  drop(): void;
}

/**
 * The gateway's card public key, cached for `ttlMs` (`publicKeyTtlMs`) on the BFF clock.
 * Concurrent misses share one gateway call; a failed fetch is not cached, nor a fetch under
 * way when the key was dropped.
 */
export function createPublicKeyCache(deps: {
  gateway: BffGateway;
  clock: Clock;
  ttlMs: number;
}): PublicKeyCache {
  let cached: { key: string; until: number } | undefined;
  let inflight: Promise<string> | undefined;
  let generation = 0;
  return {
    get() {
      const now = deps.clock.now().getTime();
      if (cached && now < cached.until) return Promise.resolve(cached.key);
      const started = generation;
      inflight ??= deps.gateway
        .getPublicKey()
        .then((res) => {
          if (started === generation) {
            cached = { key: res.key, until: deps.clock.now().getTime() + deps.ttlMs };
          }
          return res.key;
        })
        .finally(() => {
          // A fetch a drop left behind must not clear the one that began after it.
          if (started === generation) inflight = undefined;
        });
      return inflight;
    },
    drop() {
      generation++;
      cached = undefined;
      inflight = undefined;
    },
  };
}
