import { sql, type Kysely } from 'kysely';
import type { Migration } from '../../lib/db';
import { FixedWindowLimiter } from '../../lib/rate-limit';
import { precompiled, rowsOf } from '../../lib/precompiled';
import { withoutWaitingForDisk } from '../../lib/db-sync';

/** Whether one more hit of `key` fits in its window, and if not, how long to wait. */
export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Where rate-limit windows are counted. `storeRateLimits` (the BFF's default) counts in the
 * BFF's store, so a client's limit holds across every instance behind a load balancer;
 * `memoryRateLimits` counts in this process only (one instance, or tests that want it).
 */
export interface RateLimits {
  hit(
    scope: string,
    key: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateVerdict>;
}

export function memoryRateLimits(maxKeys = 10_000): RateLimits {
  const limiters = new Map<string, FixedWindowLimiter>();
  return {
    hit(scope, key, limit, windowMs, now) {
      let l = limiters.get(scope);
      if (!l) {
        l = new FixedWindowLimiter({ limit, windowMs, maxKeys });
        limiters.set(scope, l);
      }
      return Promise.resolve(l.hit(key, now));
    },
  };
}

export const rateLimitMigrations: Migration[] = [
  {
    name: 'bff_rate_0001_windows',
    async up(db) {
      await db.schema
        .createTable('bff_rate_windows')
        .addColumn('scope', 'varchar(20)', (c) => c.notNull())
        .addColumn('key', 'varchar(64)', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('bff_rate_windows_pk', ['scope', 'key'])
        .execute();
      await db.schema
        .createIndex('bff_rate_windows_start')
        .on('bff_rate_windows')
        .column('window_start')
        .execute();
    },
  },
];

/** Ended windows are deleted every this many hits of a process (and never grow unbounded). */
const PRUNE_EVERY = 500;

const hitQ = precompiled(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (db: Kysely<any>, p: { scope: string; key: string; now: number; ended: number }) => ({
    compile: () =>
      sql<{ count: number; window_start: number }>`
        insert into bff_rate_windows (scope, key, window_start, count)
        values (${p.scope}, ${p.key}, ${p.now}, 1)
        on conflict (scope, key) do update set
          count = case when bff_rate_windows.window_start <= ${p.ended}
            then 1 else bff_rate_windows.count + 1 end,
          window_start = case when bff_rate_windows.window_start <= ${p.ended}
            then ${p.now} else bff_rate_windows.window_start end
        returning count, window_start`.compile(db),
  }),
);

/**
 * Fixed windows counted in the store, one row per client and scope: a window starts at a
 * client's first hit and lasts `windowMs` (as the in-memory one does). One upsert per hit,
 * atomic on SQLite and PostgreSQL, so every instance counts into the same window.
 */
export function storeRateLimits(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
): RateLimits {
  let hits = 0;
  return {
    async hit(scope, key, limit, windowMs, now) {
      const ended = now - windowMs;
      // A window lost to a power cut only lets a client a few calls more.
      const [row] = await withoutWaitingForDisk(db, (conn) =>
        rowsOf(conn, hitQ(conn, { scope, key: key.slice(0, 64), now, ended })),
      );
      if (++hits % PRUNE_EVERY === 0) {
        await sql`delete from bff_rate_windows where window_start <= ${ended}`.execute(db);
      }
      if (!row || Number(row.count) <= limit) return { ok: true };
      const retry = Math.ceil((Number(row.window_start) + windowMs - now) / 1000);
      return { ok: false, retryAfterSeconds: Math.max(1, retry) };
    },
  };
}
