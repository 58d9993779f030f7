import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { insertEvent } from '../../../server/bff/events/store';
import { isPostgres, migrate, openDb, type OpenedDb } from '../../../server/lib/db';
import { testDbUrl } from '../../support/bff';
import { SEED_AT, seedSessionWithAttempt } from '../../support/store-rows';

/**
 * The attempt's gateway ids (payment id, NSU) are indexed only once the gateway gave them: an
 * attempt waiting for its answer adds no index entry (on SQLite each index page a commit
 * touches is a WAL frame, about 10 µs of CPU), and a lookup by NSU still uses the index.
 */

const opened: OpenedDb<BffDb>[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** A session with one attempt, answered by the gateway (NSU given) or still waiting. */
async function seed(db: Kysely<BffDb>, id: string, nsu: string | null): Promise<void> {
  await seedSessionWithAttempt(
    db,
    id,
    nsu
      ? {
          status: 'succeeded',
          return_code: '00',
          payment_id: `pay-${nsu}`,
          nsu,
          authorization_code: '123456',
        }
      : {},
  );
}

async function migrated(): Promise<Kysely<BffDb>> {
  const o = await openDb<BffDb>({ url: await testDbUrl(undefined), poolSize: 1 });
  opened.push(o);
  await migrate(o.db, BFF_MIGRATIONS);
  return o.db;
}

/** How the store would run a query: SQLite's query plan, or PostgreSQL's with no seq scan. */
async function planOf(db: Kysely<BffDb>, text: string, params: unknown[]): Promise<string> {
  if (!isPostgres(db)) {
    const r = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${text.replace(/\$\d+/g, '?')}`, params),
    );
    return r.rows.map((row) => row.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${text}`, params),
    );
    return r.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe('payment attempt indexes', () => {
  it('index an attempt by payment id and NSU only once it has them; NSU lookups use the index', async () => {
    const db = await migrated();
    await seed(db, 'cs_waiting', null);
    await seed(db, 'cs_answered', '000042');
    await seed(db, 'cs_also_waiting', null);

    if (isPostgres(db)) {
      const defs = await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes
        where schemaname = current_schema()
          and indexname in ('payment_attempts_payment_id', 'payment_attempts_nsu')`.execute(db);
      expect(defs.rows).toHaveLength(2);
      for (const d of defs.rows) expect(d.indexdef).toMatch(/WHERE \(\w+ IS NOT NULL\)/);
      expect(await planOf(db, NSU_LOOKUP, ['000042'])).toContain('payment_attempts_nsu');
      return;
    }
    const cells = await sql<{ name: string; cells: number }>`
      select name, sum(ncell) as cells from dbstat
      where name in ('payment_attempts_payment_id', 'payment_attempts_nsu') and pagetype = 'leaf'
      group by name order by name`.execute(db);
    expect(cells.rows).toEqual([
      { name: 'payment_attempts_nsu', cells: 1 },
      { name: 'payment_attempts_payment_id', cells: 1 },
    ]);
    expect(await planOf(db, NSU_LOOKUP, ['000042'])).toContain('payment_attempts_nsu');
  });
});

const NSU_LOOKUP = 'select id from payment_attempts where nsu = $1';

describe('event indexes', () => {
  it('GET /v1/events pages newest first from an index, with or without a type', async () => {
    const db = await migrated();
    for (let i = 0; i < 5; i++) {
      await insertEvent(db, {
        type: i % 2 ? 'checkout_session.failed' : 'checkout_session.succeeded',
        data: { i },
        sessionId: `cs_${i}`,
        dedupKey: `k${i}`,
        at: new Date(Date.parse(SEED_AT) + i * 1000),
        deliver: false,
      });
    }
    const page = 'order by created_at desc, id desc limit 11';
    const all = await planOf(db, `select * from bff_events ${page}`, []);
    const typed = await planOf(db, `select * from bff_events where type = $1 ${page}`, [
      'checkout_session.failed',
    ]);
    expect(all).toContain('bff_events_created');
    expect(typed).toContain('bff_events_type');
    if (!isPostgres(db)) {
      // The whole table sorted for every page is what the indexes are for.
      for (const plan of [all, typed]) expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});
