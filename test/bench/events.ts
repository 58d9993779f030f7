/**
 * The events outbox (server/bff/events): `npx tsx test/bench/events.ts`.
 *
 * 1. Delivery throughput: events inserted straight into `bff_events` of a BFF whose
 *    `eventsUrl` is a local Standard Webhooks receiver (test/support/event-receiver.ts, which
 *    verifies every signature), then sent by `EventDelivery.deliverDue()`. Prints events/s,
 *    process CPU per event and the per-request send time, and proves every event arrived
 *    exactly once (exits non-zero if one was lost or duplicated: correctness, not timing).
 * 2. The pay path with the outbox delivering vs recording only: the frictionless pay flow
 *    (create session, encrypt card, `POST /checkout/api/pay`, card 4000000000002701, credit),
 *    sequential, on a BFF with `eventsUrl` set (outbox on: the event row is written and then
 *    delivered to the receiver) and on one with `eventsUrl` '' (the event row is still written,
 *    with delivery status `none`, and never sent: "recording only"). There is no setting that
 *    skips the row, so the ratio is the price of delivering, not of the outbox as a whole.
 *    Runs are interleaved (A B A B A B) so machine load hits both alike. Prints p50/p99 of the
 *    pay call alone and of the whole flow, and the ratio on/off.
 *
 * Everything runs in this one process (sandbox, BFFs, receiver, load generator), so the CPU
 * figures include the receiver's signature checks and the sandbox's work.
 * Env: BENCH_EVENTS (3000 per measured run), BENCH_EVENTS_WARMUP (500), BENCH_PAYS (300 per
 * measured run), BENCH_PAYS_WARMUP (200 per BFF), BENCH_RUNS (3).
 */
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PayResult } from '../../server/bff/checkout-api';
import { eventDeliveryOf } from '../../server/bff/events/delivery';
import { eventsDb, insertEvent } from '../../server/bff/events/store';
import { startBff, type TestBff } from '../support/bff';
import { EVENTS_SECRET, startEventReceiver, type EventReceiver } from '../support/event-receiver';
import { startSandbox, type TestSandbox } from '../support/sandbox';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
const EVENTS_WARMUP = Number(process.env.BENCH_EVENTS_WARMUP ?? 500);
const PAYS = Number(process.env.BENCH_PAYS ?? 300);
const PAYS_WARMUP = Number(process.env.BENCH_PAYS_WARMUP ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** deliverDue() rounds allowed per run before the run counts what it got (bounded loop). */
const MAX_ROUNDS = 20;
const CARD = '4000000000002701';

const NO_LIMITS = { payRateLimitPerMinute: 1_000_000, sessionRateLimitPerMinute: 0 };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const sortedCopy = (xs: number[]) => [...xs].sort((a, b) => a - b);
const ms = (x: number) => `${x.toFixed(2)} ms`;
const line = (k: string, v: string) => console.log(`  ${k.padEnd(34)} ${v}`);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** Waits (bounded) until the delivery worker has no round running. */
async function settle(t: TestBff): Promise<void> {
  await eventDeliveryOf(t.bff.ctx)?.idle();
}

// ---------------------------------------------------------------------------------------------
// 1. Delivery throughput

interface DeliveryRun {
  count: number;
  seconds: number;
  cpuMsPerEvent: number;
  rounds: number;
  lost: number;
  duplicated: number;
  strays: number;
  rejected: number;
  sendP50: number;
  sendP99: number;
}

/** One real pay, so the benchmark's events carry a real `checkout_session.succeeded` body. */
async function realSessionData(
  t: TestBff,
  receiver: EventReceiver,
): Promise<Record<string, unknown>> {
  const s = await t.createSession({
    amount: 7_300,
    metadata: { orderId: 'BENCH-0001', channel: 'web', customerId: 'cus_bench_000001' },
  });
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, CARD, { method: 'credit' }),
  );
  if (res.status !== 200 || (res.body as PayResult).status !== 'succeeded') {
    throw new Error(`template pay: ${res.status} ${res.text.slice(0, 200)}`);
  }
  await settle(t);
  for (let i = 0; i < 100 && receiver.received.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const event = receiver.received.find((e) => e.type === 'checkout_session.succeeded');
  if (!event) throw new Error('the template event was not delivered');
  return event.data;
}

async function deliveryRun(
  t: TestBff,
  receiver: EventReceiver,
  template: Record<string, unknown>,
  run: string,
  count: number,
): Promise<DeliveryRun> {
  const db = t.bff.ctx.db;
  const delivery = eventDeliveryOf(t.bff.ctx)!;
  const inserted = new Set<string>();
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const sessionId = `cs_bench_${run}_${String(i).padStart(6, '0')}`;
      const id = await insertEvent(trx, {
        type: 'checkout_session.succeeded',
        data: { ...template, id: sessionId },
        sessionId,
        dedupKey: `checkout_session.succeeded:${sessionId}`,
        at: new Date(),
        deliver: true,
      });
      if (id === null) throw new Error(`event ${sessionId} was not inserted`);
      inserted.add(id);
    }
  });

  const base = receiver.received.length;
  const requestsBase = receiver.requests.length;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rounds = 0;
  while (rounds < MAX_ROUNDS && receiver.received.length - base < count) {
    rounds++;
    await delivery.deliverDue();
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);

  const got = receiver.received.slice(base).map((e) => e.id);
  const distinct = new Set(got);
  const lost = [...inserted].filter((id) => !distinct.has(id)).length;
  const strays = [...distinct].filter((id) => !inserted.has(id)).length;
  const rejected = receiver.requests.slice(requestsBase).filter((r) => r.status !== 204).length;

  const attempts = await eventsDb(db)
    .selectFrom('bff_event_attempts')
    .select('duration_ms')
    .where('event_id', 'in', [...inserted])
    .execute();
  const send = sortedCopy(attempts.map((a) => Number(a.duration_ms)));
  return {
    count,
    seconds,
    cpuMsPerEvent: cpuMs(cpu) / count,
    rounds,
    lost,
    duplicated: got.length - distinct.size,
    strays,
    rejected,
    sendP50: percentile(send, 50),
    sendP99: percentile(send, 99),
  };
}

function printDeliveryRun(name: string, r: DeliveryRun): void {
  const rate = r.count / r.seconds;
  console.log(
    `${name.padEnd(14)} ${String(r.count).padStart(5)} events  ${rate.toFixed(0).padStart(5)} events/s ` +
      `(${(rate / 1000).toFixed(2)}× target)  ${(r.seconds * 1000).toFixed(0)} ms  ` +
      `CPU ${r.cpuMsPerEvent.toFixed(3)} ms/event  send p50 ${r.sendP50} ms p99 ${r.sendP99} ms  ` +
      `rounds ${r.rounds}  lost ${r.lost}, duplicated ${r.duplicated}` +
      (r.strays || r.rejected ? `, strays ${r.strays}, non-204 ${r.rejected}` : ''),
  );
}

async function benchDelivery(sandbox: TestSandbox, receiver: EventReceiver): Promise<boolean> {
  const t = await startBff({
    sandbox,
    config: { ...NO_LIMITS, eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET },
  });
  try {
    const template = await realSessionData(t, receiver);
    console.log(
      `events delivered to a local receiver (SQLite in memory, one process; ` +
        `event body ${JSON.stringify(template).length} bytes of data; target ≥ 1000 events/s)`,
    );
    const runs: DeliveryRun[] = [];
    const warm = await deliveryRun(t, receiver, template, 'w', EVENTS_WARMUP);
    printDeliveryRun('warm-up', warm);
    for (let i = 0; i < RUNS; i++) {
      const r = await deliveryRun(t, receiver, template, String(i), EVENTS);
      printDeliveryRun(`run ${i + 1}`, r);
      runs.push(r);
    }
    const total = runs.reduce((n, r) => n + r.count, 0);
    const secs = runs.reduce((n, r) => n + r.seconds, 0);
    const rates = sortedCopy(runs.map((r) => r.count / r.seconds));
    const lost = [warm, ...runs].reduce((n, r) => n + r.lost, 0);
    const duplicated = [warm, ...runs].reduce((n, r) => n + r.duplicated, 0);
    const strays = [warm, ...runs].reduce((n, r) => n + r.strays, 0);
    line(
      'throughput (measured runs)',
      `${(total / secs).toFixed(0)} events/s overall, median run ${percentile(rates, 50).toFixed(0)} events/s (target ≥ 1000)`,
    );
    line(
      'process CPU per event',
      `${(runs.reduce((n, r) => n + r.cpuMsPerEvent * r.count, 0) / total).toFixed(3)} ms ` +
        '(sender + receiver in this process)',
    );
    const byStatus = await eventsDb(t.bff.ctx.db)
      .selectFrom('bff_events')
      .select(['delivery_status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('delivery_status')
      .execute();
    line('outbox', byStatus.map((s) => `${s.delivery_status}=${s.n}`).join(' '));
    line('result', `lost ${lost}, duplicated ${duplicated}${strays ? `, strays ${strays}` : ''}`);
    await settle(t);
    return lost === 0 && duplicated === 0 && strays === 0;
  } finally {
    await settle(t);
    await t.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Pay path latency, outbox delivering vs recording only

interface PayRun {
  pay: number[];
  flow: number[];
  cpuMsPerPay: number;
  failures: number;
}

async function payRun(t: TestBff, count: number, label: string): Promise<PayRun> {
  const pay: number[] = [];
  const flow: number[] = [];
  let failures = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const f0 = performance.now();
    const s = await t.createSession({
      amount: 7_300,
      metadata: { orderId: `BENCH-${label}-${i}`, channel: 'web' },
    });
    const body = await t.payBody(s.clientSecret, CARD, { method: 'credit' });
    const p0 = performance.now();
    const res = await t.pay(s.clientSecret, body);
    const p1 = performance.now();
    pay.push(p1 - p0);
    flow.push(p1 - f0);
    if (res.status !== 200 || (res.body as PayResult).status !== 'succeeded') {
      failures++;
      if (failures === 1)
        console.error(`${label}: unexpected ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  // The on-BFF's last deliveries belong to this run, not to the next one's time.
  await settle(t);
  return { pay, flow, cpuMsPerPay: cpuMs(cpu) / count, failures };
}

function printPayRun(name: string, r: PayRun): void {
  const pay = sortedCopy(r.pay);
  const flow = sortedCopy(r.flow);
  console.log(
    `${name.padEnd(22)} ${String(r.pay.length).padStart(4)} pays  ` +
      `pay call p50 ${ms(percentile(pay, 50))} p99 ${ms(percentile(pay, 99))}  ` +
      `whole flow p50 ${ms(percentile(flow, 50))} p99 ${ms(percentile(flow, 99))}  ` +
      `CPU ${r.cpuMsPerPay.toFixed(2)} ms/flow  failures ${r.failures}`,
  );
}

/**
 * The merchant's endpoint for the pay-path runs, in a worker thread (as it would be on another
 * machine): its HTTP parsing and signature checks (standardwebhooks) are not charged to the
 * BFF's event loop. Answers 204 to a verified event, 400 otherwise; `ids()` lists what it got.
 */
async function startWorkerReceiver(): Promise<{
  url: string;
  ids(): Promise<string[]>;
  close(): Promise<void>;
}> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const { Webhook } = require('standardwebhooks');
    const wh = new Webhook(workerData.secret);
    const ids = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        try {
          wh.verify(body, req.headers);
          ids.push(req.headers['webhook-id']);
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', (m) => {
      if (m === 'ids') parentPort.postMessage({ ids });
      if (m === 'close') server.close(() => parentPort.postMessage({ closed: true }));
    });`;
  const worker = new Worker(code, { eval: true, workerData: { secret: EVENTS_SECRET } });
  const ask = <T>(msg: string, key: string) =>
    new Promise<T>((resolve) => {
      const on = (m: Record<string, unknown>) => {
        if (key in m) {
          worker.off('message', on);
          resolve(m[key] as T);
        }
      };
      worker.on('message', on);
      if (msg) worker.postMessage(msg);
    });
  const port = await ask<number>('', 'port');
  return {
    url: `http://127.0.0.1:${port}/events`,
    ids: () => ask<string[]>('ids', 'ids'),
    close: async () => {
      await ask('close', 'closed');
      await worker.terminate();
    },
  };
}

async function benchPayPath(sandbox: TestSandbox): Promise<boolean> {
  const receiver = await startWorkerReceiver();
  const on = await startBff({
    sandbox,
    config: { ...NO_LIMITS, eventsUrl: receiver.url, eventsSecret: EVENTS_SECRET },
  });
  const off = await startBff({ sandbox, config: { ...NO_LIMITS, eventsUrl: '' } });
  try {
    console.log(
      `\npay path, sequential (concurrency 1), card ${CARD} credit, frictionless; ` +
        `A = outbox on (row written + delivered), B = outbox recording only (row written, not sent)`,
    );
    const receivedBefore = (await receiver.ids()).length;
    printPayRun('warm-up A (on)', await payRun(on, PAYS_WARMUP, 'wA'));
    printPayRun('warm-up B (recording)', await payRun(off, PAYS_WARMUP, 'wB'));
    const a: PayRun[] = [];
    const b: PayRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ra = await payRun(on, PAYS, `A${i}`);
      printPayRun(`run ${i + 1} A (on)`, ra);
      a.push(ra);
      const rb = await payRun(off, PAYS, `B${i}`);
      printPayRun(`run ${i + 1} B (recording)`, rb);
      b.push(rb);
      const ap = sortedCopy(ra.pay);
      const bp = sortedCopy(rb.pay);
      line(
        `  run ${i + 1} ratio A/B (pay call)`,
        `p50 ${(percentile(ap, 50) / percentile(bp, 50)).toFixed(3)}  p99 ${(percentile(ap, 99) / percentile(bp, 99)).toFixed(3)}`,
      );
    }
    const all = (rs: PayRun[], k: 'pay' | 'flow') => sortedCopy(rs.flatMap((r) => r[k]));
    const cpu = (rs: PayRun[]) => rs.reduce((n, r) => n + r.cpuMsPerPay, 0) / rs.length;
    const aPay = all(a, 'pay');
    const bPay = all(b, 'pay');
    const aFlow = all(a, 'flow');
    const bFlow = all(b, 'flow');
    const row = (k: string, x: number[], y: number[]) =>
      line(
        k,
        `on p50 ${ms(percentile(x, 50))} p99 ${ms(percentile(x, 99))} | ` +
          `recording only p50 ${ms(percentile(y, 50))} p99 ${ms(percentile(y, 99))} | ` +
          `ratio on/off p50 ${(percentile(x, 50) / percentile(y, 50)).toFixed(3)} ` +
          `p99 ${(percentile(x, 99) / percentile(y, 99)).toFixed(3)}`,
      );
    console.log(`all measured runs (${aPay.length} pays each; target: on ≤ 1.10 × off):`);
    row('pay call only (t.pay)', aPay, bPay);
    row('whole flow (session+encrypt+pay)', aFlow, bFlow);
    line(
      'process CPU per flow',
      `on ${cpu(a).toFixed(2)} ms, recording only ${cpu(b).toFixed(2)} ms, ratio ${(cpu(a) / cpu(b)).toFixed(3)} ` +
        '(sandbox + BFF + client in this process; the receiver runs in a worker thread)',
    );
    line('machine load (1 min)', loadavg()[0]!.toFixed(2));

    const pays = PAYS_WARMUP + RUNS * PAYS;
    const count = async (t: TestBff) =>
      eventsDb(t.bff.ctx.db)
        .selectFrom('bff_events')
        .select(['delivery_status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('delivery_status')
        .execute();
    const onRows = await count(on);
    const offRows = await count(off);
    const got = (await receiver.ids()).slice(receivedBefore);
    const distinct = new Set(got).size;
    line(
      'outbox rows',
      `on: ${onRows.map((s) => `${s.delivery_status}=${s.n}`).join(' ')}; ` +
        `recording only: ${offRows.map((s) => `${s.delivery_status}=${s.n}`).join(' ')}`,
    );
    const lost = pays - distinct;
    line(
      'on-BFF events received',
      `${got.length} (lost ${lost}, duplicated ${got.length - distinct})`,
    );
    const failures = [...a, ...b].reduce((n, r) => n + r.failures, 0);
    const offNone = offRows.find((s) => s.delivery_status === 'none');
    return (
      failures === 0 && lost === 0 && got.length === distinct && Number(offNone?.n ?? 0) === pays
    );
  } finally {
    await settle(on);
    await on.close();
    await off.close();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const receiver = await startEventReceiver();
  const sandbox = await startSandbox();
  let ok = false;
  try {
    const delivered = await benchDelivery(sandbox, receiver);
    const paid = await benchPayPath(sandbox);
    ok = delivered && paid;
  } finally {
    await sandbox.close();
    await receiver.close();
  }
  if (!ok) {
    console.error('events bench: FAILED (events lost or duplicated, or pays that did not succeed)');
    process.exit(1);
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
