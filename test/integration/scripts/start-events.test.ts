import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startStack } from '../../../scripts/start';
import type { BffDb } from '../../../server/bff/db';
import { eventAttempts, findEvent } from '../../../server/bff/events/store';
import { dueEvent } from '../../support/event-rows';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { openDb } from '../../../server/lib/db';
import { migrate } from '../../../server/lib/migrate';

// `npm start` again with an event due for the storefront: the BFF sends it as it starts,
// before the storefront's app is built on its bound port. That request waits for the app; a
// 503 would spend one of the event's tries (its last one here, and the event would be failed).
const dir = mkdtempSync(join(tmpdir(), 'stack-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start: events due at start', () => {
  it('are delivered to the storefront, no try spent on it while it starts', async () => {
    const before = await openDb<BffDb>({ url: join(dir, 'bff.sqlite') });
    let id: string;
    try {
      await migrate(before.db, BFF_MIGRATIONS);
      // Its series' last try is due now: 7 refused, the first 2.9 days ago.
      id = await dueEvent(before.db, 'cs_due_at_start', new Date(), { lastTry: true });
    } finally {
      await before.close();
    }
    const stack = await startStack({ dataDir: dir, distDir: join(dir, 'dist') });
    const look = await openDb<BffDb>({ url: join(dir, 'bff.sqlite') });
    try {
      await vi.waitFor(
        async () => {
          expect(await findEvent(look.db, id)).toMatchObject({ delivery_status: 'delivered' });
        },
        { timeout: 15_000, interval: 100 },
      );
      const tries = await eventAttempts(look.db, id);
      expect(tries.map((t) => t.status)).toEqual([204]);
    } finally {
      await look.close();
      await stack.close();
    }
  }, 60_000);
});
