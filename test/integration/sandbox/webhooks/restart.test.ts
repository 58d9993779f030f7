import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { webhooksOf } from '../../../../server/sandbox/webhooks/service';
import { startSandbox } from '../../../support/sandbox';
import { basic, startReceiver, waitFor } from './receiver';

const dir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a sandbox restarted mid-backoff on the same SQLite file resumes the delivery', async () => {
  const dbUrl = join(dir, 'sandbox.sqlite');
  const base = { now: () => new Date('2026-07-01T12:00:00Z') };
  const receiver = await startReceiver();
  receiver.status = 503;
  const auth = basic('gw', 'pw');

  const first = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(0, base) } });
  const set = await first.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    body: { url: `${receiver.url}/hook`, basicAuth: auth },
  });
  expect(set.status).toBe(200);
  const [id] = await webhooksOf(first.sandbox.ctx).notify([
    {
      accountNumber: '1001',
      nsu: '42',
      codAuth: 'XYZ',
      installmentNumber: 1,
      oldValue: '',
      newValue: 'Authorized',
    },
  ]);
  await waitFor(() => receiver.received.length === 1);
  await first.call('POST', '/__sandbox/clock/advance', { token: null, body: { seconds: 5 } });
  expect(receiver.received).toHaveLength(2);
  await first.close();
  // The key that seals basicAuth lives beside the database, readable by its owner only.
  expect(statSync(`${dbUrl}.kek`).mode & 0o777).toBe(0o600);

  receiver.status = 200;
  const second = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(5000, base) } });
  try {
    // The third attempt is due 5 min after the second; nothing goes out before.
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.received).toHaveLength(2);
    await second.call('POST', '/__sandbox/clock/advance', { token: null, body: { minutes: 5 } });
    expect(receiver.received).toHaveLength(3);
    const third = receiver.received[2]!;
    expect(third.authorization).toBe(`Basic ${auth}`);
    expect(third.body.movementId).toBe(id);
    const list = await second.call('GET', '/__sandbox/webhook-deliveries', { token: null });
    expect(
      (list.body as { items: { status: string; attemptCount: number }[] }).items[0],
    ).toMatchObject({ status: 'delivered', attemptCount: 3 });
  } finally {
    await second.close();
    await receiver.close();
  }
});
