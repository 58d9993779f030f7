import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListener } from '../../../scripts/events-listen';
import { MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { startEventReceiver, type EventReceiver } from '../../support/event-receiver';

// `npm run events:listen`: a BFF that cannot reach the developer's laptop (no events URL here)
// still gets its events to a local endpoint, signed with the listener's secret.
const LISTEN_SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
let t: TestBff;
let receiver: EventReceiver;

beforeAll(async () => {
  receiver = await startEventReceiver(LISTEN_SECRET);
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function until<T>(fn: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const expire = async (amount: number) => {
  const s = await t.createSession({ amount });
  await t.request('POST', `/v1/checkout-sessions/${s.id}/expire`, {
    headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
  });
  return s.id;
};

describe('events:listen', () => {
  it('forwards the new events, signed, in order; what was there before only with --replay', async () => {
    const before = await expire(101);
    const lines: string[] = [];
    const listener = startListener({
      bffUrl: t.url,
      merchantSecret: MERCHANT_SECRET,
      forwardTo: receiver.url,
      signingSecret: LISTEN_SECRET,
      intervalMs: 100,
      print: (l) => lines.push(l),
    });
    try {
      await listener.ready;
      const a = await expire(102);
      const b = await expire(103);
      await until(() => receiver.received.length >= 2);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received.map((e) => (e.data as { id: string }).id)).toEqual([a, b]);
      expect(receiver.requests.every((r) => r.status === 204)).toBe(true);
      expect(lines.filter((l) => /checkout_session\.expired .*<-- 204/.test(l))).toHaveLength(2);
    } finally {
      await listener.stop();
    }
    const replaying = startListener({
      bffUrl: t.url,
      merchantSecret: MERCHANT_SECRET,
      forwardTo: receiver.url,
      signingSecret: LISTEN_SECRET,
      intervalMs: 100,
      replay: 3,
      print: () => undefined,
    });
    await replaying.ready;
    await replaying.stop();
    expect(receiver.received.slice(2).map((e) => (e.data as { id: string }).id)).toEqual([
      before,
      ...receiver.received.slice(0, 2).map((e) => (e.data as { id: string }).id),
    ]);
  });

  it('the command says how to use it when --forward-to is missing or not a URL', () => {
    const run = (args: string[]) =>
      spawnSync('npx', ['tsx', 'scripts/events-listen.ts', ...args], { encoding: 'utf8' });
    const none = run([]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--forward-to <url>/);
    const bad = run(['--forward-to', 'localhost:3000']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/must be an http\(s\) URL/);
  });
});
