import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventDeliveryOf } from '../../../server/bff/events/delivery';
import { findEvent, insertEvent, type EventRow } from '../../../server/bff/events/store';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import {
  EVENTS_SECRET,
  startEventReceiver,
  type EventReceiver,
} from '../../support/event-receiver';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// A receiver that hangs or refuses one event holds that event only: the others are sent
// alongside it, and a refused event is tried again on its schedule while the one hangs.
let sandbox: TestSandbox;
let receiver: EventReceiver;
let t: TestBff;

beforeAll(async () => {
  sandbox = await startSandbox();
  receiver = await startEventReceiver();
  t = await eventsBff();
});
/** A BFF sending to `receiver`; no maintenance round runs in it. */
const eventsBff = () =>
  startBff({
    sandbox,
    // Long enough that no hanging send times out (nor its claim lapses) within a test.
    config: { eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET, eventsTimeoutMs: 60_000 },
  });
afterEach(async () => {
  receiver.mode = 'ok';
  receiver.modeFor = null;
  receiver.release();
  t.clock.reset(0);
  await delivery().idle();
});
afterAll(async () => {
  await t.close();
  await sandbox.close();
  await receiver.close();
});

const delivery = () => eventDeliveryOf(t.bff.ctx)!;

async function until(what: string, fn: () => boolean | Promise<boolean>, ms = 15_000) {
  for (const end = Date.now() + ms; !(await fn()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Whether the store shows the event with these columns (the receiver answers first). */
const stored = (id: string, row: Partial<EventRow>) => async () => {
  const e = await findEvent(t.bff.ctx.db, id);
  return Object.entries(row).every(([k, v]) => String(e?.[k as keyof EventRow]) === String(v));
};

let n = 0;
/** Records an event the way a change does (its row, then a kick after the commit). */
async function newEvent(kick = true): Promise<string> {
  const id = await insertEvent(t.bff.ctx.db, {
    type: 'checkout_session.expired',
    data: { id: `cs_conc_${++n}` },
    sessionId: `cs_conc_${n}`,
    dedupKey: `checkout_session.expired:cs_conc_${n}`,
    at: t.clock.now(),
    deliver: true,
  });
  if (kick) delivery().kick();
  return id!;
}

const requestsOf = (id: string) => receiver.requests.filter((r) => r.id === id);
const arrivedOnce = (ids: string[]) =>
  ids.every((id) => receiver.received.filter((e) => e.id === id).length === 1);

/**
 * Records two events and kicks once for both, so that they start together: the receiver
 * hangs on `hanging` (it never ends by itself) and refuses `refused` once. Resolves once the
 * refusal is recorded.
 */
async function hangOneRefuseOne(): Promise<{ hanging: string; refused: string }> {
  const hanging = await newEvent(false);
  const refused = await newEvent(false);
  let refusedOnce = false;
  receiver.modeFor = (id) => {
    if (id === hanging) return 'hang';
    if (id !== refused || refusedOnce) return undefined;
    refusedOnce = true;
    return 'down';
  };
  delivery().kick();
  await until('the refusal', stored(refused, { delivery_status: 'pending', attempts: 1 }));
  return { hanging, refused };
}

describe('event delivery beside a receiver that hangs', () => {
  it('events recorded while one hangs are sent at once, each once', async () => {
    receiver.mode = 'hang';
    const before = receiver.arrived;
    const first = await newEvent();
    await until('the first event to arrive', () => receiver.arrived === before + 1);
    const later: string[] = [];
    for (let i = 0; i < 10; i++) later.push(await newEvent());
    // All ten reach the receiver while the first still hangs there.
    await until('the ten later events to arrive', () => receiver.arrived === before + 11);
    expect(receiver.requests.filter((r) => [first, ...later].includes(r.id!))).toEqual([]);
    receiver.release();
    await delivery().idle();
    expect(arrivedOnce([first, ...later])).toBe(true);
    for (const id of [first, ...later]) {
      expect(await findEvent(t.bff.ctx.db, id)).toMatchObject({
        delivery_status: 'delivered',
        total_attempts: 1,
      });
    }
  });

  it('an event refused beside one that hangs is tried again on its schedule', async () => {
    const { hanging, refused } = await hangOneRefuseOne();
    // Its retry is 5 s later: nothing else is recorded meanwhile, the other still hangs.
    await until('the retry', stored(refused, { delivery_status: 'delivered', total_attempts: 2 }));
    expect(requestsOf(refused).map((r) => r.status)).toEqual([503, 204]);
    expect(requestsOf(hanging)).toEqual([]);
  });

  it('a refused event due again is read with the events recorded after it', async () => {
    const { hanging, refused } = await hangOneRefuseOne();
    // Its retry time has come (by the BFF's clock) while new events keep the sending busy.
    t.clock.advance(5_000);
    const later: string[] = [];
    for (let i = 0; i < 3; i++) later.push(await newEvent());
    await until('the later events and the retry', () => arrivedOnce([refused, ...later]));
    expect(requestsOf(refused).map((r) => r.status)).toEqual([503, 204]);
    expect(requestsOf(hanging)).toEqual([]);
  });

  it('an event whose claim lapsed while this instance still sends it is not sent twice', async () => {
    const hanging = await newEvent(false);
    receiver.modeFor = (id) => (id === hanging ? 'hang' : undefined);
    const before = receiver.arrived;
    delivery().kick();
    await until('the hanging event to arrive', () => receiver.arrived === before + 1);
    // Past twice the timeout by the BFF's clock: the store shows the event due again, and
    // the later event's kick reads it with the later one…
    t.clock.advance(2 * 60_000 + 1_000);
    const later = await newEvent();
    await until('the later event', () => arrivedOnce([later]));
    // …but this instance is still sending it: one request of it, the later event's beside it.
    expect(receiver.arrived).toBe(before + 2);
    receiver.release();
    await delivery().idle();
    expect(arrivedOnce([hanging])).toBe(true);
    expect(await findEvent(t.bff.ctx.db, hanging)).toMatchObject({
      delivery_status: 'delivered',
      total_attempts: 1,
    });
  });
});

describe('an event redelivered while this instance sends it', () => {
  it('is sent again once that send ends, with no other kick', async () => {
    // A BFF of its own: no retry timer armed by another test kicks its delivery.
    const own = await eventsBff();
    try {
      const delivery = eventDeliveryOf(own.bff.ctx)!;
      const id = (await insertEvent(own.bff.ctx.db, {
        type: 'checkout_session.expired',
        data: { id: 'cs_redo_1' },
        sessionId: 'cs_redo_1',
        dedupKey: 'checkout_session.expired:cs_redo_1',
        at: own.clock.now(),
        deliver: true,
      }))!;
      let arrived = 0;
      receiver.modeFor = (x) => (x === id && ++arrived === 1 ? 'hang' : undefined);
      delivery.kick();
      await until('the first send to arrive', () => arrived === 1);

      const redo = await own.request('POST', `/v1/events/${id}/redeliver`, {
        headers: { authorization: `Bearer ${MERCHANT_SECRET}`, 'idempotency-key': `redo-${id}` },
      });
      expect(redo.status).toBe(202);
      // The redelivery's kick has read the store (after its linger) while the first send hangs.
      const reading = delivery as unknown as { lingering: boolean; filling: unknown };
      await until("the redelivery's read", () => !reading.lingering && reading.filling === null);
      expect(requestsOf(id)).toEqual([]);

      // The first send's answer is not recorded (the redelivery reset its claim); the new
      // series goes out once it ends, though nothing kicks the delivery again.
      receiver.release();
      await until('the new series to arrive', () => requestsOf(id).length === 2, 5_000);
      expect(requestsOf(id).map((r) => r.status)).toEqual([204, 204]);
      await delivery.idle();
      expect(await findEvent(own.bff.ctx.db, id)).toMatchObject({
        delivery_status: 'delivered',
        total_attempts: 1,
      });
    } finally {
      receiver.release();
      await own.close();
    }
  });
});
