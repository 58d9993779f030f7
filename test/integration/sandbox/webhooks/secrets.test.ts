import { sql } from 'kysely';
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { createLogger } from '../../../../server/lib/logging';
import { webhooksOf } from '../../../../server/sandbox/webhooks/service';
import { startSandbox } from '../../../support/sandbox';
import { basic, startReceiver, waitFor } from './receiver';

it('basicAuth reaches the endpoint and nowhere else: not the logs, tables or control plane', async () => {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'trace',
    destination: new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  });
  const sb = await startSandbox({
    deps: { logger, clock: new OffsetClock(0, { now: () => new Date('2026-09-01T12:00:00Z') }) },
  });
  const receiver = await startReceiver();
  const password = 'Very-Secret-Webhook-Password-42';
  const auth = basic('merchant', password);
  try {
    receiver.status = 500;
    const set = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
      body: { url: `${receiver.url}/hook`, basicAuth: auth },
    });
    expect(set.status).toBe(200);
    expect(JSON.stringify(set.body)).not.toContain(auth);
    await webhooksOf(sb.sandbox.ctx).notify([
      {
        accountNumber: '1001',
        nsu: '1',
        codAuth: 'X',
        installmentNumber: 1,
        oldValue: '',
        newValue: 'Authorized',
      },
    ]);
    await waitFor(() => receiver.received.length === 1);
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { seconds: 5 } });
    expect(receiver.received.map((r) => r.authorization)).toEqual([
      `Basic ${auth}`,
      `Basic ${auth}`,
    ]);

    const deliveries = await sb.call('GET', '/__sandbox/webhook-deliveries', { token: null });
    const get = await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001');
    const dump: string[] = [JSON.stringify(deliveries.body), JSON.stringify(get.body), ...lines];
    for (const table of ['webhook_subscriptions', 'webhook_notifications', 'webhook_attempts']) {
      const rows = await sql`select * from ${sql.table(table)}`.execute(sb.sandbox.ctx.db);
      dump.push(JSON.stringify(rows.rows));
    }
    const all = dump.join('\n');
    expect(all).not.toContain(auth);
    expect(all).not.toContain(password);
  } finally {
    await sb.close();
    await receiver.close();
  }
});
