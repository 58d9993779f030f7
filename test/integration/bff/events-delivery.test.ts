import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventWithDelivery, ListPage } from '../../../contract/events';
import type { PayResult } from '../../../server/bff/checkout-api';
import { eventDeliveryOf, GIVE_UP_AFTER_MS } from '../../../server/bff/events/delivery';
import { eventAttempts, findEvent } from '../../../server/bff/events/store';
import { dueEvent } from '../../support/event-rows';
import { startBff, type TestBff } from '../../support/bff';
import { failWrites } from '../../support/store-failures';
import { EVENTS_SECRET, startEventReceiver } from '../../support/event-receiver';
import {
  delivery,
  merchant,
  ofSession,
  paySession,
  receiver,
  t,
  until,
  useEventsBff,
} from '../../support/events-bff';

// Events delivered to a receiver that is down, hangs, or gets a redelivery (issue 10 §1).
useEventsBff();

describe('delivery', () => {
  it('a receiver down for a while gets every event once it is up, each once', async () => {
    receiver.mode = 'down';
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push((await paySession('4000000000002701')).session.id);
    await until(() => receiver.requests.filter((r) => r.status === 503).length >= 3);
    await delivery().idle();
    const listed = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=3', {
      headers: merchant,
    });
    const page = listed.body as ListPage<EventWithDelivery>;
    expect(page.data.map((e) => (e.data as { id: string }).id).sort()).toEqual(
      [...sessions].sort(),
    );
    for (const e of page.data) expect(e.delivery).toMatchObject({ status: 'pending', attempts: 1 });
    // Still down at the second try (5 s later): a second failure, the next in a minute.
    t.clock.advance(5_000);
    await delivery().deliverDue();
    receiver.mode = 'ok';
    t.clock.advance(60_000);
    await delivery().deliverDue();
    t.clock.reset(0);
    for (const id of sessions) {
      const got = receiver.received.filter(
        (e) => e.type === 'checkout_session.succeeded' && ofSession(id)(e),
      );
      expect(got).toHaveLength(1);
    }
    const one = page.data[0]!;
    const detail = await t.request('GET', `/v1/events/${one.id}`, { headers: merchant });
    const d = (detail.body as EventWithDelivery).delivery;
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, nextAttemptAt: null });
    expect(d.history!.map((h) => h.status)).toEqual([503, 503, 204]);
    expect(d.history!.map((h) => h.error)).toEqual(['HTTP 503', 'HTTP 503', null]);
  });

  it('gives up after three days (failed), and a redelivery starts a new series', async () => {
    receiver.mode = 'down';
    const { session } = await paySession('4000000000002701');
    const id = await until(async () => {
      const list = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=1', {
        headers: merchant,
      });
      const e = (list.body as ListPage<EventWithDelivery>).data[0];
      return e && (e.data as { id: string }).id === session.id && e.delivery.attempts >= 1
        ? e.id
        : undefined;
    });
    let advanced = 0;
    try {
      for (let i = 0; i < 20 && advanced <= GIVE_UP_AFTER_MS; i++) {
        t.clock.advance(12 * 3_600_000);
        advanced += 12 * 3_600_000;
        await delivery().deliverDue();
      }
      const failed = (await t.request('GET', `/v1/events/${id}`, { headers: merchant }))
        .body as EventWithDelivery;
      expect(failed.delivery.status).toBe('failed');
      expect(failed.delivery.nextAttemptAt).toBeNull();
      receiver.mode = 'ok';
      const headers = { ...merchant, 'idempotency-key': `redeliver-${id}` };
      const redo = await t.request('POST', `/v1/events/${id}/redeliver`, { headers });
      expect(redo.status).toBe(202);
      expect(
        (await t.request('POST', `/v1/events/${id}/redeliver`, { headers })).headers.get(
          'idempotent-replayed',
        ),
      ).toBe('true');
      await until(() => receiver.received.some((e) => e.id === id));
      await delivery().idle();
      const done = (await t.request('GET', `/v1/events/${id}`, { headers: merchant }))
        .body as EventWithDelivery;
      expect(done.delivery.status).toBe('delivered');
      expect(receiver.received.filter((e) => e.id === id)).toHaveLength(1);
    } finally {
      t.clock.reset(0);
      receiver.mode = 'ok';
    }
  });

  it('a redelivery of a delivered event shows no delivery until the new series arrives', async () => {
    const { session } = await paySession('4000000000002701');
    const id = await until(async () => {
      const list = await t.request('GET', '/v1/events?type=checkout_session.succeeded&limit=1', {
        headers: merchant,
      });
      const e = (list.body as ListPage<EventWithDelivery>).data[0];
      return e && (e.data as { id: string }).id === session.id && e.delivery.status === 'delivered'
        ? e.id
        : undefined;
    });
    receiver.mode = 'down';
    try {
      const redo = await t.request('POST', `/v1/events/${id}/redeliver`, {
        headers: { ...merchant, 'idempotency-key': `redeliver-again-${id}` },
      });
      expect(redo.status).toBe(202);
      const shown = redo.body as EventWithDelivery;
      expect(shown.delivery.status).toBe('pending');
      expect(shown.delivery.deliveredAt).toBeNull();
    } finally {
      receiver.mode = 'ok';
    }
  });

  it('a restart mid-delivery loses nothing: another BFF on the store sends it, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-events-'));
    const file = join(dir, 'bff.sqlite');
    const hanging = await startEventReceiver();
    hanging.mode = 'hang';
    const config = { eventsUrl: hanging.url, eventsSecret: EVENTS_SECRET, eventsTimeoutMs: 60_000 };
    const a = await startBff({ sandbox: t.sandbox, dbUrl: file, config });
    let b: TestBff | undefined;
    try {
      const s = await a.createSession({ amount: 990 });
      const paid = await a.pay(
        s.clientSecret,
        await a.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
      );
      expect((paid.body as PayResult).status).toBe('succeeded');
      // A is sending it and the receiver holds the request; A stops before any answer.
      await until(() => hanging.arrived >= 1);
      await a.close();
      b = await startBff({ sandbox: t.sandbox, dbUrl: file, config });
      // B leaves the event alone while A's claim (twice the timeout) holds…
      await eventDeliveryOf(b.bff.ctx)!.deliverDue();
      expect(hanging.arrived).toBe(1);
      // …then takes it over once the claim lapsed.
      hanging.mode = 'ok';
      b.clock.advance(2 * 60_000 + 1_000);
      await eventDeliveryOf(b.bff.ctx)!.deliverDue();
      expect(hanging.arrived).toBe(2);
      expect(hanging.received.filter((e) => (e.data as { id: string }).id === s.id)).toHaveLength(
        1,
      );
      const list = await b.request('GET', '/v1/events', { headers: merchant });
      const event = (list.body as ListPage<EventWithDelivery>).data[0]!;
      expect(event.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await b?.close();
      await hanging.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a send cut by the BFF's own stop spends no try, not even the last one", async () => {
    const hanging = await startEventReceiver();
    hanging.mode = 'hang';
    const config = { eventsUrl: hanging.url, eventsSecret: EVENTS_SECRET, eventsTimeoutMs: 60_000 };
    const a = await startBff({ sandbox: t.sandbox, config });
    try {
      const id = await dueEvent(a.bff.ctx.db, 'cs_cut_by_stop', a.clock.now(), { lastTry: true });
      const d = eventDeliveryOf(a.bff.ctx)!;
      void d.deliverDue();
      await until(() => hanging.arrived >= 1);
      // The stop destroys the sockets: the send ends in a reset of our own making.
      d.stop();
      await d.idle();
      expect(await findEvent(a.bff.ctx.db, id)).toMatchObject({
        delivery_status: 'pending',
        attempts: 7,
      });
      expect(await eventAttempts(a.bff.ctx.db, id)).toEqual([]);
    } finally {
      await a.close();
      await hanging.close();
    }
  });

  it('a delivery whose record failed is sent again once its claim lapses, with no kick', async () => {
    const ok = await startEventReceiver();
    const config = { eventsUrl: ok.url, eventsSecret: EVENTS_SECRET, eventsTimeoutMs: 500 };
    const a = await startBff({ sandbox: t.sandbox, config });
    const heal = await failWrites(a.bff.ctx.db, 'bff_event_attempts');
    try {
      const id = await dueEvent(a.bff.ctx.db, 'cs_record_failed', a.clock.now());
      await eventDeliveryOf(a.bff.ctx)!.deliverDue();
      // Received, but not recorded: still claimed (for twice the timeout), nothing else to come.
      expect(ok.arrived).toBe(1);
      expect(await findEvent(a.bff.ctx.db, id)).toMatchObject({ delivery_status: 'pending' });
      await heal();
      await until(async () => (await findEvent(a.bff.ctx.db, id))?.delivery_status === 'delivered');
      // Sent again under the same webhook-id, so the receiver can tell it has it.
      const ids = ok.requests.map((r) => r.id);
      expect(ids).toEqual([id, id]);
    } finally {
      await a.close();
      await ok.close();
    }
  });
});
