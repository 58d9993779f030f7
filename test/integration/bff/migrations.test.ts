import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { bffMigrations } from '../../../server/bff/db';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { inboxMigrations } from '../../../server/bff/webhooks/store';
import { migrate, openDb } from '../../../server/lib/db';
import { testDbUrl } from '../../support/bff';

// The store of the run: a fresh PostgreSQL schema under `npm run test:postgres`, else a
// SQLite file (several connections must see one database, which `:memory:` is not).
const dir = mkdtempSync(join(tmpdir(), 'bff-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
async function storeUrl(): Promise<string> {
  const url = await testDbUrl(undefined);
  return url === ':memory:' ? join(dir, `store-${++files}.sqlite`) : url;
}

describe('BFF migrations', () => {
  it('three processes starting at the same instant on an empty store migrate it once', async () => {
    const url = await storeUrl();
    const runs = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<{ ran: number }>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ['--import', 'tsx', 'test/support/migrate-once.ts', url],
              { stdio: ['ignore', 'pipe', 'pipe'] },
            );
            let out = '';
            child.stdout.on('data', (c: Buffer) => (out += c.toString()));
            child.stderr.on('data', (c: Buffer) => (out += c.toString()));
            child.once('exit', (code) =>
              code === 0 ? resolve(JSON.parse(out) as { ran: number }) : reject(new Error(out)),
            );
          }),
      ),
    );
    // One of them ran every migration; the others waited for it and found nothing to do.
    expect(runs.map((r) => r.ran).sort((a, b) => a - b)).toEqual([0, 0, BFF_MIGRATIONS.length]);
    const { db, close } = await openDb<BffDb>({ url });
    try {
      const rows = await sql<{ name: string }>`select name from _migrations`.execute(db);
      expect(rows.rows.map((r) => r.name).sort()).toEqual(BFF_MIGRATIONS.map((m) => m.name).sort());
      // The webhook inbox is part of the one list: its table is there without a receiver.
      const inbox = await sql<{ n: number }>`select count(*) as n from webhook_inbox`.execute(db);
      expect(Number(inbox.rows[0]!.n)).toBe(0);
    } finally {
      await close();
    }
  }, 60_000);

  it('a store migrated the old way (inbox separately) upgrades: only what is new runs', async () => {
    const url = await storeUrl();
    const { db, close } = await openDb<BffDb>({ url });
    try {
      await migrate(db, bffMigrations);
      await migrate(db, inboxMigrations);
      const now = new Date().toISOString();
      await db
        .insertInto('checkout_sessions')
        .values({
          id: 'cs_upgrade',
          client_secret_hash: 'x'.repeat(64),
          status: 'open',
          amount: 1990,
          methods: 'credit',
          max_installments: 1,
          origin: 'http://localhost:3000',
          attempts_used: 0,
          created_at: now,
          updated_at: now,
          expires_at: now,
        } as never)
        .execute();
      const old = new Set([...bffMigrations, ...inboxMigrations].map((m) => m.name));
      expect(await migrate(db, BFF_MIGRATIONS)).toEqual(
        BFF_MIGRATIONS.map((m) => m.name).filter((n) => !old.has(n)),
      );
      expect(await migrate(db, BFF_MIGRATIONS)).toEqual([]);
      const kept = await db
        .selectFrom('checkout_sessions')
        .select('amount')
        .where('id', '=', 'cs_upgrade')
        .executeTakeFirst();
      expect(Number(kept?.amount)).toBe(1990);
    } finally {
      await close();
    }
  });

  it('a migration that fails leaves nothing half-applied, and the next start retries it', async () => {
    const url = await storeUrl();
    const { db, close } = await openDb<BffDb>({ url });
    try {
      const broken = [
        ...BFF_MIGRATIONS,
        {
          name: 'zz_test_broken',
          async up(trx: typeof db) {
            await sql`create table zz_half (id integer)`.execute(trx);
            throw new Error('boom');
          },
        },
      ];
      await expect(migrate(db, broken)).rejects.toThrow('boom');
      // Rolled back as one: not even the earlier migrations of that run are recorded.
      const ran = await migrate(db, BFF_MIGRATIONS);
      expect(ran).toHaveLength(BFF_MIGRATIONS.length);
      await expect(sql`select * from zz_half`.execute(db)).rejects.toThrow();
    } finally {
      await close();
    }
  });
});
