import { sql } from 'kysely';
import type { Clock } from '../../lib/clock';
import type { BffKysely } from '../db';
import type { BffGateway } from '../gateway-port';

export interface PublicKeyCache {
  /** The key: cached, or from one gateway call shared by concurrent misses. */
  get(): Promise<string>;
  /**
   * Forgets the cached key: the gateway refused a ciphertext made with it (a rotated key), so
   * the next read (the next frame load) asks the gateway again, on every instance of the store.
   */
  drop(): Promise<void>;
}

/** The row of `bff_card_key` counting the drops of the card key. */
const KEY = 'card';

/**
 * The gateway's card public key, cached for `ttlMs` (`publicKeyTtlMs`) on the BFF clock.
 * Concurrent misses share one gateway call; a failed fetch is not cached, nor a fetch under
 * way when the key was dropped. A drop is counted in the store (`bff_card_key`): each read
 * compares the count with its copy's, so a key one instance found refused is read again by
 * every instance, not handed out by the others until their copies expire.
 */
export function createPublicKeyCache(deps: {
  db: BffKysely;
  gateway: BffGateway;
  clock: Clock;
  ttlMs: number;
}): PublicKeyCache {
  let cached: { key: string; until: number; drops: number } | undefined;
  let inflight: { key: Promise<string>; drops: number } | undefined;
  let epoch = 0;
  // The last count read: a store that cannot answer leaves the copy as it was.
  let lastDrops = 0;
  const forget = () => {
    epoch++;
    cached = undefined;
    inflight = undefined;
  };
  const dropsNow = () =>
    deps.db
      .selectFrom('bff_card_key')
      .select('drops')
      .where('name', '=', KEY)
      .executeTakeFirst()
      .then(
        (row) => (lastDrops = Number(row?.drops ?? 0)),
        () => lastDrops,
      );
  return {
    async get() {
      const drops = await dropsNow();
      if ((cached && cached.drops !== drops) || (inflight && inflight.drops !== drops)) forget();
      const now = deps.clock.now().getTime();
      if (cached && now < cached.until) return cached.key;
      const started = epoch;
      inflight ??= {
        drops,
        key: deps.gateway
          .getPublicKey()
          .then((res) => {
            if (started === epoch) {
              cached = { key: res.key, until: deps.clock.now().getTime() + deps.ttlMs, drops };
            }
            return res.key;
          })
          .finally(() => {
            // A fetch a drop left behind must not clear the one that began after it.
            if (started === epoch) inflight = undefined;
          }),
      };
      return inflight.key;
    },
    async drop() {
      forget();
      await deps.db
        .insertInto('bff_card_key')
        .values({ name: KEY, drops: 1 })
        .onConflict((oc) => oc.column('name').doUpdateSet({ drops: sql`bff_card_key.drops + 1` }))
        .execute();
    },
  };
}
