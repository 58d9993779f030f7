import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { listen, type RunningServer } from '../../../support/servers';
import { creditBody, plainCardInfo } from '../payment-helpers';
import { gw, monthlyPlan, vault } from '../recurrence/helpers';
import { basic, waitFor } from './receiver';

/** An endpoint that accepts every POST and holds it unanswered until `release()`. */
async function startHolder(): Promise<
  RunningServer & { held: number; released: boolean; release(): void }
> {
  const waiting: (() => void)[] = [];
  const state = { held: 0, released: false };
  const app = new Hono().post('/hook', async (c) => {
    await c.req.text();
    state.held++;
    if (!state.released) await new Promise<void>((resolve) => waiting.push(resolve));
    return c.body(null, 200);
  });
  const server = await listen(app);
  return {
    ...server,
    get held() {
      return state.held;
    },
    get released() {
      return state.released;
    },
    release() {
      state.released = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

let sb: TestSandbox;
let holder: Awaited<ReturnType<typeof startHolder>>;
beforeAll(async () => {
  sb = await startSandbox({
    deps: { clock: new OffsetClock(0, { now: () => new Date('2026-05-04T15:00:00Z') }) },
  });
});
afterAll(async () => {
  holder?.release();
  await sb?.close();
  await holder?.close();
});

const pay = async (extra: Record<string, unknown> = {}) => {
  const res = await sb.call('POST', '/v1/payments', {
    body: { ...creditBody(plainCardInfo(sb, '4000000000002701')), ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const control = async (path: string) =>
  (await sb.call('GET', `/__sandbox/${path}`, { token: null })).body as {
    items: { status: string; attemptCount: number }[];
  };

// Delivery must not hold the scheduler's lock while it waits on the receiver: recurrence writes
// take that lock, and the BFF gives createSubscription 30 s (the delivery timeout).
describe('a receiver that never answers does not hold up the API', () => {
  it.each([
    ['webhook', 'webhook-deliveries'],
    ['urlCallBack', 'callback-deliveries'],
  ])('%s: recurrence writes answer while a delivery is in flight', async (kind, log) => {
    holder = await startHolder();
    const url = `${holder.url}/hook`;
    if (kind === 'webhook') {
      const set = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
        token: await sb.token('integration'),
        body: { url, basicAuth: basic('gateway', 'pw') },
      });
      expect(set.status).toBe(200);
      await pay();
    } else {
      await sb.call('DELETE', '/api/webhooks/subscriptions?accountNumber=1001', {
        token: await sb.token('integration'),
      });
      await pay({ urlCallBack: url });
    }
    await waitFor(() => holder.held >= 1);

    const plan = await gw(sb, 'POST', '/v1/recurrences/plans', monthlyPlan);
    expect(plan.status).toBe(200);
    const sub = await gw(sb, 'POST', '/v1/recurrences/subscriptions', {
      planId: plan.body,
      vaultId: await vault(sb),
      orderNumber: `ORD-${kind.slice(0, 3)}`,
    });
    expect(sub.status).toBe(200);
    // Both answered while the receiver still holds the first delivery: no outcome recorded yet.
    expect(holder.released).toBe(false);
    const inFlight = (await control(log)).items;
    expect(inFlight.some((d) => d.status === 'pending' && d.attemptCount === 0)).toBe(true);

    holder.release();
    await waitFor(async () => (await control(log)).items.every((d) => d.status === 'delivered'));
    await holder.close();
  });
});
