import { sql, type Kysely } from 'kysely';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { findSession, listAttempts } from '../../../server/bff/sessions/store';
import { isPostgres, migrate, openDb, type OpenedDb } from '../../../server/lib/db';
import { precompiled, precompiledTexts, rowsOf } from '../../../server/lib/precompiled';
import { testDbUrl } from '../../support/bff';
import { seedSessionWithAttempt } from '../../support/store-rows';

/**
 * The pay path's precompiled statements on the real store (SQLite here, PostgreSQL under
 * `npm run test:postgres`): on PostgreSQL they are prepared by name once per connection, and
 * a column added meanwhile by another instance's migration does not break them.
 */

const opened: OpenedDb<BffDb>[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function store(url: string, namedStatements = true): Promise<Kysely<BffDb>> {
  // One connection: PostgreSQL's pg_prepared_statements shows the current session's only.
  const o = await openDb<BffDb>({ url, poolSize: 1, namedStatements });
  opened.push(o);
  return o.db;
}

async function seed(db: Kysely<BffDb>, id: string): Promise<void> {
  await seedSessionWithAttempt(db, id);
}

async function prepared(db: Kysely<BffDb>): Promise<string[]> {
  const res = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
  return res.rows.map((r) => r.name);
}

const everythingQ = precompiled((db: Kysely<BffDb>, p: { id: string }) =>
  db.selectFrom('checkout_sessions').selectAll().where('id', '=', p.id),
);

describe('precompiled statements on the store', () => {
  it('read and write the rows, and keep working after another instance adds a column', async () => {
    // A file, so a second connection sees the same SQLite database.
    const given = await testDbUrl(undefined);
    const url =
      given === ':memory:' ? join(mkdtempSync(join(tmpdir(), 'stmts-')), 'bff.sqlite') : given;
    const db = await store(url);
    await migrate(db, BFF_MIGRATIONS);
    await seed(db, 'cs_one');
    expect((await findSession(db, 'cs_one'))?.status).toBe('open');
    expect((await listAttempts(db, 'cs_one')).map((a) => a.card_last4)).toEqual(['2701']);

    // Another instance's migration, on its own connection.
    const other = await store(url);
    await sql`alter table checkout_sessions add column later_col varchar(10)`.execute(other);
    await sql`alter table payment_attempts add column later_col varchar(10)`.execute(other);

    await seed(db, 'cs_two');
    const row = await findSession(db, 'cs_two');
    expect(row?.id).toBe('cs_two');
    expect(row && 'later_col' in row).toBe(false);
    expect(await listAttempts(db, 'cs_two')).toHaveLength(1);
  });
});

// PostgreSQL only (`npm run test:postgres`): SQLite keeps its prepared statements per text in
// openDb's statement cache, with nothing named to look at.
const onPostgres = /^postgres(ql)?:/.test(process.env.BFF_TEST_DATABASE_URL ?? '');
if (onPostgres) {
  it('on PostgreSQL, the statements are prepared by name once per connection; a select * is not', async () => {
    const url = await testDbUrl(undefined);
    const db = await store(url);
    expect(isPostgres(db)).toBe(true);
    await migrate(db, BFF_MIGRATIONS);
    await seed(db, 'cs_named');
    await findSession(db, 'cs_named');
    await rowsOf(db, everythingQ(db, { id: 'cs_named' }));
    const names = await prepared(db);
    const find = [...precompiledTexts].find(
      ([text]) => text.startsWith('select "id", "client_secret_hash"') && text.includes('$1'),
    );
    expect(find).toBeDefined();
    expect(names).toContain(find![1]);
    const star = precompiledTexts.get(everythingQ(db, { id: 'x' }).sql)!;
    expect(names).not.toContain(star);

    const plain = await store(url, false);
    await findSession(plain, 'cs_named');
    expect(await prepared(plain)).toEqual([]);
  });

  it('on PostgreSQL, an idle connection killed by the server is dropped and replaced, not fatal', async () => {
    const url = await testDbUrl(undefined);
    const told: Error[] = [];
    const o = await openDb<BffDb>({
      url,
      poolSize: 2,
      onIdleConnectionError: (err) => told.push(err),
    });
    opened.push(o);
    await migrate(o.db, BFF_MIGRATIONS);
    await seed(o.db, 'cs_survives');
    const pid = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(o.db);
    // Another connection ends ours while it waits idle in the pool (a restart, a failover).
    const admin = await store(url);
    await sql`select pg_terminate_backend(${pid.rows[0]!.pid})`.execute(admin);
    const deadline = Date.now() + 10_000;
    while (told.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(told.map((e) => e.message).join()).toMatch(/terminat/);
    expect((await findSession(o.db, 'cs_survives'))?.status).toBe('open');
  });
}
