import type { Migration } from '../../lib/db';
import type { SandboxKysely } from '../db';

export interface ClockTables {
  sandbox_state: { key: string; value: string };
}

export const clockMigrations: Migration[] = [
  {
    name: '0001_sandbox_state',
    async up(db) {
      await db.schema
        .createTable('sandbox_state')
        .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  },
];

const OFFSET_KEY = 'clock_offset_ms';

export async function loadClockOffset(db: SandboxKysely): Promise<number> {
  const row = await db
    .selectFrom('sandbox_state')
    .select('value')
    .where('key', '=', OFFSET_KEY)
    .executeTakeFirst();
  const n = row ? Number(row.value) : 0;
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** A line for start-up when the business clock is not real time, else null. */
export function clockOffsetNotice(offsetMs: number, now: Date): string | null {
  const rounded = Math.round(offsetMs / 1000) * 1000;
  if (rounded === 0) return null;
  const days = Math.floor(rounded / 86_400_000);
  const rest = new Date(rounded).toISOString().slice(11, 19);
  return `  sandbox clock: ${days} d ${rest} ahead of real time (now ${now.toISOString()}); POST /__sandbox/clock/reset brings it back`;
}

export async function saveClockOffset(db: SandboxKysely, offsetMs: number): Promise<void> {
  await db
    .insertInto('sandbox_state')
    .values({ key: OFFSET_KEY, value: String(offsetMs) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(offsetMs) }))
    .execute();
}
