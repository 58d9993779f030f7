import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BffDb } from '../../../server/bff/db';
import { eventDeliveryOf, type EventDelivery } from '../../../server/bff/events/delivery';
import {
  eventAttempts,
  findEvent,
  insertEvent,
  type EventRow,
} from '../../../server/bff/events/store';
import { openDb, type OpenedDb } from '../../../server/lib/db';
import { startBff, testDbUrl, type TestBff } from '../../support/bff';
import {
  EVENTS_SECRET,
  startEventReceiver,
  type EventReceiver,
} from '../../support/event-receiver';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// Two BFF instances delivering the events of one store: each claim is a compare-and-set, so
// an event is sent by one of them per try, whatever order their reads and claims come in.
let sandbox: TestSandbox;
let store: OpenedDb<BffDb>;
let receiver: EventReceiver;
let a: TestBff;
let b: TestBff;

beforeAll(async () => {
  sandbox = await startSandbox();
  receiver = await startEventReceiver();
  store = await openDb<BffDb>({ url: await testDbUrl(undefined) });
  const config = { eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET };
  a = await startBff({ sandbox, config, deps: { db: store.db } });
  b = await startBff({ sandbox, config, deps: { db: store.db } });
});
afterAll(async () => {
  await a.close();
  await b.close();
  await store.close();
  await sandbox.close();
  await receiver.close();
});

/** The steps of one delivery round, one at a time: read what is due, claim one row. */
const steps = (d: EventDelivery) =>
  d as unknown as {
    due(): Promise<EventRow[]>;
    claimRow(row: EventRow): Promise<unknown>;
  };

let n = 0;
const newEvent = () =>
  insertEvent(store.db, {
    type: 'checkout_session.expired',
    data: { id: `cs_inst_${++n}` },
    sessionId: `cs_inst_${n}`,
    dedupKey: `checkout_session.expired:cs_inst_${n}`,
    at: a.clock.now(),
    deliver: true,
  }).then((id) => id!);

describe('event delivery by two instances on one store', () => {
  it('a row one instance read before the other sent and recorded it is not claimed from that read', async () => {
    receiver.mode = 'down';
    try {
      const id = await newEvent();
      const A = steps(eventDeliveryOf(a.bff.ctx)!);
      const stale = (await A.due()).find((r) => r.id === id)!;
      expect(stale).toBeDefined();
      // B sends it meanwhile: refused, recorded, the next try in 5 s, its claim released.
      await eventDeliveryOf(b.bff.ctx)!.deliverDue();
      expect(await findEvent(store.db, id)).toMatchObject({
        total_attempts: 1,
        claimed_until: null,
      });
      // A reaches the row now: the row changed since A read it, so A does not send it.
      receiver.mode = 'ok';
      expect(await A.claimRow(stale)).toBeNull();
      await eventDeliveryOf(a.bff.ctx)!.deliverDue();
      expect(receiver.requests.filter((r) => r.id === id)).toHaveLength(1);
      expect((await eventAttempts(store.db, id)).map((x) => x.attempt)).toEqual([1]);
    } finally {
      receiver.mode = 'ok';
    }
  });

  it('both delivering at once during an outage: each event is sent once in the round', async () => {
    receiver.mode = 'down';
    try {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push(await newEvent());
      const before = receiver.requests.length;
      await Promise.all([
        eventDeliveryOf(a.bff.ctx)!.deliverDue(),
        eventDeliveryOf(b.bff.ctx)!.deliverDue(),
      ]);
      const sent = new Map<string, number>();
      for (const r of receiver.requests.slice(before)) {
        if (ids.includes(r.id!)) sent.set(r.id!, (sent.get(r.id!) ?? 0) + 1);
      }
      expect(sent.size).toBe(100);
      expect([...sent.values()].filter((times) => times > 1)).toEqual([]);
      const logs = [...a.logs, ...b.logs];
      expect(logs.filter((l) => l.includes('"events.record_failed"'))).toEqual([]);
    } finally {
      receiver.mode = 'ok';
    }
  });
});
