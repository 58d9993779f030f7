import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBffEnv } from '../../../server/bff/env';
import { startBff, type StartedBff } from '../../../server/bff/start';
import { durableStores } from '../../../server/lib/db-sync';

/**
 * The BFF's SQLite commits are on disk before they return (durable commits, a WAL fsync each
 * commit waits for) unless the operator chose otherwise: an OS crash or power loss must not
 * forget a charge the gateway made, nor reopen a session that was paid.
 */

const started: StartedBff[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function durabilityOf(extra: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bff-sync-'));
  dirs.push(dir);
  const env = readBffEnv({
    BFF_DB: join(dir, 'bff.sqlite'),
    BFF_RESOLVE_INTERVAL_MS: '0',
    BFF_WEBHOOK_REGISTER: 'false',
    ...extra,
  });
  const s = await startBff(env, { serve: () => {} });
  started.push(s);
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(s.bff.ctx.db);
  const durable = durableStores.has(s.bff.ctx.db);
  return `${durable ? 'durable commits' : 'no fsync of its own'}, synchronous ${rows[0]!.synchronous}`;
}

describe('the BFF store durability', () => {
  it('syncs each commit by default, only at checkpoints when BFF_SQLITE_SYNC=normal', async () => {
    expect(await durabilityOf({})).toBe('durable commits, synchronous 1');
    expect(await durabilityOf({ BFF_SQLITE_SYNC: 'normal' })).toBe(
      'no fsync of its own, synchronous 1',
    );
    expect(() => readBffEnv({ BFF_SQLITE_SYNC: 'off' })).toThrow(/BFF_SQLITE_SYNC/);
  });
});
