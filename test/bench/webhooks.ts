/**
 * Webhook delivery throughput: notifications from the sandbox outbox to the BFF receiver over
 * loopback (real HTTP, Basic auth, durable stores on both sides). The BFF runs in a child
 * process, as in production, so sender and receiver each have a core. Prints notifications/s
 * and proves none was lost and none processed twice.
 *
 *   npx tsx test/bench/webhooks.ts [count]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createBffApp } from '../../server/bff/app';
import { defaultBffConfig } from '../../server/bff/config';
import type { BffDb } from '../../server/bff/db';
import type { BffGateway } from '../../server/bff/gateway-port';
import { webhookReceiverOf } from '../../server/bff/webhooks/receiver';
import { inboxDb } from '../../server/bff/webhooks/store';
import { openDb } from '../../server/lib/db';
import { DELIVERY_CONCURRENCY, webhooksOf } from '../../server/sandbox/webhooks/service';
import { startSandbox } from '../support/sandbox';
import { listen } from '../support/servers';

const PASSWORD = 'bench-secret';

interface InboxStats {
  rows: number;
  distinct_ids: number;
  dups: number;
  unprocessed: number;
  ids: number[];
  /** CPU time the receiver process spent (µs), since it became ready. */
  cpuMicros: number;
}

type FromChild = { type: 'ready'; url: string } | { type: 'idle'; stats: InboxStats };

/** Child mode: the BFF alone, its inbox on a SQLite file, driven over IPC. */
async function receiverProcess(dbFile: string): Promise<void> {
  const { db, close } = await openDb<BffDb>({ url: dbFile });
  const { app, ctx } = await createBffApp({
    db,
    // The receiver's one gateway call: the ledger confirms each notification (a double that
    // confirms at once: this measures the receiver, not the gateway).
    gateway: {
      searchConcilByCode: (q: { nsu: string; codAuth: string }) =>
        Promise.resolve([{ nsu: q.nsu, codAuth: q.codAuth, installmentStatus: 'A' }]),
    } as unknown as BffGateway,
    config: defaultBffConfig({ webhook: { user: 'gateway', password: PASSWORD } }),
  });
  const server = await listen(app);
  const receiver = webhookReceiverOf(ctx);
  await receiver.idle();
  const send = (m: FromChild) => process.send!(m);
  const cpu0 = process.cpuUsage();
  process.on('message', (m: string) => {
    void (async () => {
      if (m === 'idle') {
        await receiver.idle();
        const inbox = inboxDb(ctx.db);
        const r = await sql<Omit<InboxStats, 'ids'>>`
          select count(*) as rows, count(distinct movement_id) as distinct_ids,
                 coalesce(sum(duplicates), 0) as dups,
                 coalesce(sum(case when status = 'received' then 1 else 0 end), 0) as unprocessed
          from webhook_inbox`.execute(inbox);
        const ids = (await inbox.selectFrom('webhook_inbox').select('movement_id').execute()).map(
          (x) => Number(x.movement_id),
        );
        const cpu = process.cpuUsage(cpu0);
        send({ type: 'idle', stats: { ...r.rows[0]!, ids, cpuMicros: cpu.user + cpu.system } });
      } else if (m === 'stop') {
        await server.close();
        await close();
        process.exit(0);
      }
    })();
  });
  send({ type: 'ready', url: server.url });
}

async function main(count: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--receiver', join(dir, 'bff.sqlite')],
    { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
  );
  const waiters: ((m: FromChild) => void)[] = [];
  child.on('message', (m: FromChild) => waiters.shift()?.(m));
  const next = () => new Promise<FromChild>((resolve) => waiters.push(resolve));
  const ready = await next();
  if (ready.type !== 'ready') throw new Error('receiver did not start');

  const sb = await startSandbox({ dbUrl: join(dir, 'sandbox.sqlite') });
  const sub = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    token: await sb.token('integration'),
    body: {
      url: `${ready.url}/webhooks/gateway`,
      basicAuth: Buffer.from(`gateway:${PASSWORD}`).toString('base64'),
    },
  });
  if (sub.status !== 200) throw new Error(`subscribe: ${sub.status}`);

  const items = Array.from({ length: count }, (_, i) => ({
    accountNumber: '1001',
    nsu: String(100_000_000_000 + i),
    codAuth: `A${String(i).padStart(5, '0')}`,
    installmentNumber: 1 + (i % 12),
    oldValue: '' as const,
    newValue: 'Authorized' as const,
  }));

  const db = sb.sandbox.ctx.db;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const ids = await webhooksOf(sb.sandbox.ctx).notify(items);
  const enqueued = performance.now();
  for (;;) {
    const row = await db
      .selectFrom('webhook_notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const delivered = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const senderMicros = cpu.user + cpu.system;
  child.send('idle');
  const idle = await next();
  const processed = performance.now();
  if (idle.type !== 'idle') throw new Error('no stats');
  const s = idle.stats;

  const outbox = await db
    .selectFrom('webhook_notifications')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const attempts = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const got = new Set(s.ids);
  const lost = ids.filter((id) => !got.has(id)).length;

  const secs = (a: number, b: number) => (b - a) / 1000;
  const rate = count / secs(started, processed);
  const line = (k: string, v: string) => console.log(`  ${k.padEnd(28)} ${v}`);
  console.log(`webhooks: ${count} notifications, delivery concurrency ${DELIVERY_CONCURRENCY}`);
  line('enqueue (outbox insert)', `${secs(started, enqueued).toFixed(2)} s`);
  line('all delivered (2xx)', `${secs(started, delivered).toFixed(2)} s`);
  line('all processed by the BFF', `${secs(started, processed).toFixed(2)} s`);
  line('throughput', `${rate.toFixed(0)} notifications/s (target ≥ 2000)`);
  const perSender = senderMicros / count;
  const perReceiver = s.cpuMicros / count;
  line(
    'CPU per notification',
    `sandbox ${perSender.toFixed(0)} µs, BFF ${perReceiver.toFixed(0)} µs`,
  );
  line(
    'CPU-bound capacity',
    `${(1e6 / Math.max(perSender, perReceiver)).toFixed(0)} notifications/s with a free core each`,
  );
  line('machine load (1 min)', (await import('node:os')).loadavg()[0]!.toFixed(2));
  line('outbox', `${outbox.map((o) => `${o.status}=${o.n}`).join(' ')}; attempts=${attempts.n}`);
  line(
    'inbox',
    `rows=${s.rows} distinct=${s.distinct_ids} duplicates=${s.dups} unprocessed=${s.unprocessed}`,
  );
  line('result', `lost=${lost} processed twice=${Number(s.dups)}`);

  child.send('stop');
  await new Promise((r) => child.on('exit', r));
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
  const ok =
    lost === 0 &&
    Number(s.rows) === count &&
    Number(s.distinct_ids) === count &&
    Number(s.dups) === 0 &&
    Number(s.unprocessed) === 0 &&
    Number(attempts.n) === count;
  if (!ok) {
    console.error('webhooks bench: FAILED (lost, duplicated or unprocessed notifications)');
    process.exit(1);
  }
}

if (process.argv[2] === '--receiver') {
  await receiverProcess(process.argv[3]!);
} else {
  await main(Number(process.argv[2] ?? 10_000));
}
