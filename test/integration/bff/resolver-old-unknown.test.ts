import { afterEach, describe, expect, it } from 'vitest';
import { resolverSuite } from '../../support/resolver-suite';
import { slowBffForSuite } from '../../support/slow-bff';
import { seedSessionWithAttempt } from '../../support/store-rows';

/**
 * Unknown payments older than a week: no maintenance round ran meanwhile (every instance down,
 * a store restored from a backup), and the ledger still holds the truth. Its own file: it
 * moves the sandbox's business clock, which the other resolver suites read by today's date.
 */
const bffs = slowBffForSuite();
const DAY = 86_400_000;

const { merchant, resolve, detail, lostPayment } = resolverSuite(bffs);

/** Both clocks, the BFF's and the sandbox's business clock, `days` on. */
async function bothClocksOn(days: number) {
  const moved = await bffs.slow.sandbox.call('POST', '/__sandbox/clock/advance', {
    token: null,
    body: { days },
  });
  expect(moved.status).toBe(200);
  bffs.slow.clock.advance(days * DAY);
}

/** The merchant events `checkout_session.succeeded` of session `id`. */
async function succeededEvents(id: string) {
  const listed = await bffs.slow.request(
    'GET',
    '/v1/events?type=checkout_session.succeeded&limit=100',
    { headers: merchant },
  );
  expect(listed.status).toBe(200);
  return (listed.body as { data: { data: { id: string } }[] }).data.filter((e) => e.data.id === id);
}

afterEach(async () => {
  bffs.slow.clock.reset(0);
  await bffs.slow.sandbox.call('POST', '/__sandbox/clock/reset', { token: null });
});

describe('an unknown payment older than a week', () => {
  it('charged, 9 days without a round: the next round finds it, shopper and merchant told once', async () => {
    const lost = await lostPayment(6_101);
    await bothClocksOn(9);
    const report = await resolve();
    expect(report.resolved).toEqual([lost.attemptId]);
    expect(report.notHappened).toEqual([]);
    expect((await detail(lost.sessionId)).status).toBe('succeeded');
    const view = await bffs.slow.frame(lost.secret, 'GET', '/checkout/api/session');
    expect(view.body).toMatchObject({ status: 'succeeded' });
    expect(await succeededEvents(lost.sessionId)).toHaveLength(1);
    // Settled once: the next round has nothing of it, the merchant no second event.
    expect((await resolve()).resolved).toEqual([]);
    expect(await succeededEvents(lost.sessionId)).toHaveLength(1);
  });

  it('not charged, 9 days without a round: declared not to have happened, its days covered', async () => {
    const lost = await lostPayment(6_102, '4000000000000002');
    await bothClocksOn(9);
    const report = await resolve();
    expect(report.notHappened).toEqual([lost.attemptId]);
    expect(report.resolved).toEqual([]);
    const d = await detail(lost.sessionId);
    expect(d.attempts[0]).toMatchObject({ status: 'failed', failureCode: 'try_again_later' });
    // It took payments again, and its 30 minutes have long run out.
    expect(d.status).toBe('expired');
  });

  it('two unknown payments 20 days apart, the older charged: each settled by its own search', async () => {
    const charged = await lostPayment(6_103);
    await bothClocksOn(20);
    const declined = await lostPayment(6_104, '4000000000000002');
    await bothClocksOn(1);
    const report = await resolve();
    expect(report.resolved).toEqual([charged.attemptId]);
    expect(report.notHappened).toEqual([declined.attemptId]);
    expect((await detail(charged.sessionId)).status).toBe('succeeded');
    expect((await detail(declined.sessionId)).attempts[0]).toMatchObject({
      status: 'failed',
      failureCode: 'try_again_later',
    });
  });

  it('a backlog of months is searched a few weeks a round, oldest first, each from its own day', async () => {
    const db = bffs.slow.bff.ctx.db;
    const now = bffs.slow.clock.now().getTime();
    // Four never-charged attempts a week and a half apart, the newest 12 days old.
    const ids = [45, 34, 23, 12].map((age, i) => ({ id: `cs_backlog_${i}`, at: now - age * DAY }));
    for (const { id, at } of ids) {
      const when = new Date(at).toISOString();
      await seedSessionWithAttempt(db, id, { created_at: when, updated_at: when });
      await db
        .updateTable('checkout_sessions')
        .set({ status: 'pending' })
        .where('id', '=', id)
        .execute();
    }
    const gateway = bffs.slow.bff.ctx.gateway;
    const search = gateway.searchConcilByOperationDate.bind(gateway);
    const starts: string[] = [];
    gateway.searchConcilByOperationDate = async (q, o) => {
      starts.push(q.startDate);
      return search(q, o);
    };
    const dayBefore = (at: number) => new Date(at - DAY).toISOString().slice(0, 10);
    try {
      const first = await resolve();
      expect(first.notHappened).toEqual(ids.slice(0, 3).map(({ id }) => `pa_${id}`));
      expect(first.stillUnknown).toEqual([`pa_${ids[3]!.id}`]);
      expect(starts).toEqual(ids.slice(0, 3).map(({ at }) => dayBefore(at)));
      const second = await resolve();
      expect(second.notHappened).toEqual([`pa_${ids[3]!.id}`]);
      expect(starts.slice(3)).toEqual([dayBefore(ids[3]!.at)]);
    } finally {
      gateway.searchConcilByOperationDate = search;
    }
  });
});
