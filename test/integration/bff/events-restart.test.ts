import { describe, expect, it, vi } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { eventDeliveryOf } from '../../../server/bff/events/delivery';
import { eventsDb, findEvent, insertEvent } from '../../../server/bff/events/store';
import { dueEvent } from '../../support/event-rows';
import { BFF_MIGRATIONS } from '../../../server/bff/migrations';
import { OffsetClock } from '../../../server/lib/clock';
import { migrate } from '../../../server/lib/migrate';
import { openDb, type OpenedDb } from '../../../server/lib/db';
import { startBff, testDbUrl, type TestBff } from '../../support/bff';
import {
  EVENTS_SECRET,
  startEventReceiver,
  type EventReceiver,
} from '../../support/event-receiver';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// An event delivery refused by its receiver is retried on its schedule (events/delivery.ts):
// the time of the next try is in the store, the timer that waits for it in the process. A BFF
// started again on the store (a restart, a deploy) must find those retries by itself, with no
// maintenance round (`BFF_RESOLVE_INTERVAL_MS=0`) and no new event to kick it.

/** A sandbox, an event receiver and a store that outlive the BFFs started on them. */
async function around(
  test: (on: {
    sandbox: TestSandbox;
    receiver: EventReceiver;
    store: OpenedDb<BffDb>;
  }) => Promise<void>,
) {
  const sandbox = await startSandbox();
  const receiver = await startEventReceiver();
  const store = await openDb<BffDb>({ url: await testDbUrl(undefined) });
  try {
    await test({ sandbox, receiver, store });
  } finally {
    await store.close();
    await receiver.close();
    await sandbox.close();
  }
}

describe('event retries across a restart', () => {
  it('a BFF started again sends the retries due, and wakes for the next one', () =>
    around(async ({ sandbox, receiver, store }) => {
      const config = () => ({ eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET });
      const before = await startBff({ sandbox, config: config(), deps: { db: store.db } });
      let after: TestBff | undefined;
      try {
        const record = async (n: number) =>
          (await insertEvent(store.db, {
            type: 'checkout_session.expired',
            data: { id: `cs_restart_${n}` },
            sessionId: `cs_restart_${n}`,
            dedupKey: `checkout_session.expired:cs_restart_${n}`,
            at: before.clock.now(),
            deliver: true,
          }))!;
        // Both refused once: the first is tried again 5 s later, the second 3 s after that.
        receiver.mode = 'down';
        const first = await record(1);
        await eventDeliveryOf(before.bff.ctx)!.deliverDue();
        before.clock.advance(3_000);
        const second = await record(2);
        await eventDeliveryOf(before.bff.ctx)!.deliverDue();
        for (const id of [first, second]) {
          expect(await findEvent(store.db, id)).toMatchObject({ delivery_status: 'pending' });
        }
        await before.close();
        receiver.mode = 'ok';

        // Started again 6 s after the first refusal: the first retry is due, the second 2 s on.
        after = await startBff({
          sandbox,
          config: config(),
          deps: { db: store.db, clock: new OffsetClock(6_000) },
        });
        const delivered = (id: string) =>
          receiver.requests.filter((r) => r.id === id && r.status === 204);
        await vi.waitFor(
          async () => {
            expect(delivered(first)).toHaveLength(1);
            expect(delivered(second)).toHaveLength(1);
            expect(await findEvent(store.db, second)).toMatchObject({
              delivery_status: 'delivered',
            });
          },
          { timeout: 10_000, interval: 50 },
        );
      } finally {
        await (after ?? before).close();
      }
    }));

  it('an event a killed BFF had claimed is sent once its claim lapses, with no kick', () =>
    around(async ({ sandbox, receiver, store }) => {
      await migrate(store.db, BFF_MIGRATIONS);
      const now = new Date();
      const id = await dueEvent(store.db, 'cs_killed', now);
      // The killed process was sending it: its claim lapses 1.5 s from now.
      await eventsDb(store.db)
        .updateTable('bff_events')
        .set({ claimed_until: new Date(now.getTime() + 1_500).toISOString() })
        .where('id', '=', id)
        .execute();
      const bff = await startBff({
        sandbox,
        config: { eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET },
        deps: { db: store.db },
      });
      try {
        await vi.waitFor(
          async () => {
            expect(await findEvent(store.db, id)).toMatchObject({ delivery_status: 'delivered' });
          },
          { timeout: 10_000, interval: 50 },
        );
        expect(receiver.requests.filter((r) => r.id === id).map((r) => r.status)).toEqual([204]);
      } finally {
        await bff.close();
      }
    }));
});
