import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { createConnection, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBffEnv } from '../../../server/bff/env';
import { startBff, type StartedBff } from '../../../server/bff/start';
import { durableStores } from '../../../server/lib/db-sync';
import { createLogger } from '../../../server/lib/logging';
import {
  DEVICE_INFO,
  encryptWithKey,
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  startBff as startTestBff,
  type TestBff,
} from '../../support/bff';
import { bffProcess } from '../../support/bff-process';
import { freePort } from '../../support/child-server';
import { startSandbox } from '../../support/sandbox';
import { seedSessionWithAttempt } from '../../support/store-rows';

/**
 * The BFF's SQLite commits are on disk before they return (durable commits, a WAL fsync each
 * commit waits for) unless the operator chose otherwise: an OS crash or power loss must not
 * forget a charge the gateway made, nor reopen a session that was paid.
 */

const started: (StartedBff | TestBff)[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function durabilityOf(extra: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bff-sync-'));
  dirs.push(dir);
  const env = readBffEnv({
    BFF_DB: join(dir, 'bff.sqlite'),
    BFF_RESOLVE_INTERVAL_MS: '0',
    BFF_WEBHOOK_REGISTER: 'false',
    ...extra,
  });
  const s = await startBff(env, { serve: () => {} });
  started.push(s);
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(s.bff.ctx.db);
  const durable = durableStores.has(s.bff.ctx.db);
  return `${durable ? 'durable commits' : 'no fsync of its own'}, synchronous ${rows[0]!.synchronous}`;
}

describe('the BFF store durability', () => {
  it('syncs each commit by default, only at checkpoints when BFF_SQLITE_SYNC=normal', async () => {
    expect(await durabilityOf({})).toBe('durable commits, synchronous 1');
    expect(await durabilityOf({ BFF_SQLITE_SYNC: 'normal' })).toBe(
      'no fsync of its own, synchronous 1',
    );
    expect(() => readBffEnv({ BFF_SQLITE_SYNC: 'off' })).toThrow(/BFF_SQLITE_SYNC/);
  });
});

describe('where a commit syncs', () => {
  it('a lone request on the event loop, requests side by side on the thread pool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-inline-'));
    dirs.push(dir);
    const s = await startBff(
      readBffEnv({
        BFF_DB: join(dir, 'bff.sqlite'),
        BFF_RESOLVE_INTERVAL_MS: '0',
        BFF_WEBHOOK_REGISTER: 'false',
        BFF_MERCHANT_SECRET: MERCHANT_SECRET,
        BFF_ALLOWED_ORIGINS: 'http://shop.test:3000',
        BFF_SESSION_RATE_LIMIT: '0',
      }),
      { serve: () => {} },
    );
    started.push(s);
    const fsyncs = durableStores.get(s.bff.ctx.db)!.fsyncs;
    const create = () =>
      s.bff.app.request('/v1/checkout-sessions', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${MERCHANT_SECRET}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ amount: 1000, origin: 'http://shop.test:3000' }),
      });
    // Alone on a quiet loop (the loop's business is read over 20 ms or more: the start-up's
    // may still count in the first reading; a loaded machine may make a reading busy too).
    let lone = 0;
    for (let i = 0; i < 20 && lone === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const inline = fsyncs.inline;
      expect((await create()).status).toBe(201);
      lone = fsyncs.inline - inline;
    }
    expect(lone).toBe(1);
    const pooled = fsyncs.pooled;
    const answers = await Promise.all(Array.from({ length: 8 }, create));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(fsyncs.pooled).toBeGreaterThan(pooled);
  });
});

describe('answers made of reads', () => {
  it('a GET waits until what it could read is on disk; with nothing owed, for no fsync', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-reads-'));
    dirs.push(dir);
    let gate = Promise.resolve();
    let open = () => {};
    let syncs = 0;
    const t = await startTestBff({
      dbUrl: join(dir, 'bff.sqlite'),
      syncWal: async () => {
        syncs++;
        await gate;
      },
    });
    started.push(t);
    const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
    const s = await t.createSession({ amount: 1234 });
    const order: string[] = [];

    gate = new Promise<void>((r) => (open = r));
    // Committed (the session expired, its event written), its fsync held: the write waits...
    const expire = t
      .request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers: merchant })
      .then((a) => (order.push('expire answered'), a));
    await new Promise((r) => setTimeout(r, 50));
    // ...and so does a read that may have seen it, though its own query ran at once.
    const list = t
      .request('GET', '/v1/events', { headers: merchant })
      .then((a) => (order.push('list answered'), a));
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual([]);
    open();
    const [expired, listed] = await Promise.all([expire, list]);
    expect(expired.status).toBe(200);
    expect(listed.status).toBe(200);
    const events = (listed.body as { data: { type: string; data: { id: string } }[] }).data;
    expect(events.map((e) => `${e.type} ${e.data.id}`)).toContain(
      `checkout_session.expired ${s.id}`,
    );

    // Everything read is on disk already: the next read answers without one.
    const before = syncs;
    expect((await t.request('GET', '/v1/events', { headers: merchant })).status).toBe(200);
    expect(
      (await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant })).status,
    ).toBe(200);
    expect(syncs).toBe(before);
  });
});

/**
 * A BFF on a durable file store whose WAL fsyncs are held, once `hold.on` is set, until each
 * is released (`hold.held`, in the order they began); a credit pay body of `card` is ready.
 */
async function bffWithHeldSyncs(card: string) {
  const dir = mkdtempSync(join(tmpdir(), 'bff-held-sync-'));
  dirs.push(dir);
  const hold = { on: false, held: [] as (() => void)[] };
  const t = await startTestBff({
    dbUrl: join(dir, 'bff.sqlite'),
    syncWal: async () => {
      if (hold.on) await new Promise<void>((r) => hold.held.push(r));
    },
  });
  started.push(t);
  const s = await t.createSession({ amount: 1234 });
  const body = await t.payBody(s.clientSecret, card, { method: 'credit' });
  return { t, s, body, hold, held: hold.held };
}

describe('a pay on a durable store', () => {
  it('is on disk before the gateway is called; its answer waits for no fsync of its outcome', async () => {
    const { t, s, body, hold, held } = await bffWithHeldSyncs('4000000000002701');
    const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
    const sales = async () =>
      (await t.sandbox.sandbox.ctx.db.selectFrom('payments').select('payment_id').execute()).length;

    hold.on = true;
    let answered = false;
    const paid = t.pay(s.clientSecret, body).then((a) => ((answered = true), a));
    // The claim with its attempt committed; its fsync is held: the gateway is not called.
    await expect.poll(() => held.length, { timeout: 5_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(await sales()).toBe(0);
    expect(answered).toBe(false);

    held.shift()!();
    // The sale made and its outcome committed: the shopper hears of it while the outcome's
    // fsync is still held (the claim on disk lets the resolver find the sale after a power cut).
    await expect.poll(() => answered, { timeout: 5_000 }).toBe(true);
    const answer = await paid;
    expect(answer.status).toBe(200);
    expect((answer.body as { status: string }).status).toBe('succeeded');
    expect(await sales()).toBe(1);
    expect(held.length).toBe(1);

    // Whoever reads the outcome waits for that fsync, a GET or a POST that only read.
    const told: string[] = [];
    const got = t
      .request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant })
      .then((a) => (told.push('read'), a));
    const expire = t
      .request('POST', `/v1/checkout-sessions/${s.id}/expire`, { headers: merchant })
      .then((a) => (told.push('expire'), a));
    await new Promise((r) => setTimeout(r, 100));
    expect(told).toEqual([]);
    hold.on = false;
    for (const release of held.splice(0)) release();
    expect(((await got).body as { status: string }).status).toBe('succeeded');
    expect((await expire).status).toBe(409);
  });
});

describe('a declined pay on a durable store', () => {
  it('is answered only once its outcome is on disk: no ledger would tell it again', async () => {
    const { t, s, body, hold, held } = await bffWithHeldSyncs('4000000000009995');
    hold.on = true;
    let answered = false;
    const paid = t.pay(s.clientSecret, body).then((a) => ((answered = true), a));
    await expect.poll(() => held.length, { timeout: 5_000 }).toBe(1);
    held.shift()!();
    // The decline committed; its fsync held: the shopper is not told yet.
    await expect.poll(() => held.length, { timeout: 5_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    hold.on = false;
    held.shift()!();
    const answer = await paid;
    expect(answer.body).toMatchObject({ status: 'failed', error: { code: 'insufficient_funds' } });
  });
});

describe('stopping (SIGTERM)', () => {
  /**
   * A BFF whose gateway holds every call until released, with an unknown payment: its
   * maintenance round, looking the payment up, waits on the gateway.
   */
  async function bffWithRoundWaiting(extra: Record<string, string> = {}) {
    const held: ServerResponse[] = [];
    const gateway = createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()));
    const gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'bff-stop-'));
    dirs.push(dir);
    const port = await freePort();
    const s = await startBff(
      readBffEnv({
        BFF_DB: join(dir, 'bff.sqlite'),
        BFF_PORT: String(port),
        BFF_PUBLIC_URL: `http://127.0.0.1:${port}`,
        GATEWAY_BASE_URL: gatewayUrl,
        INTEGRATION_BASE_URL: gatewayUrl,
        BFF_RESOLVE_INTERVAL_MS: '200',
        BFF_WEBHOOK_REGISTER: 'false',
        ...extra,
      }),
    );
    const at = new Date(Date.now() - 120_000).toISOString();
    await seedSessionWithAttempt(s.bff.ctx.db, 'cs_stop_round', {
      created_at: at,
      updated_at: at,
    });
    await s.bff.ctx.db
      .updateTable('checkout_sessions')
      .set({ status: 'pending' })
      .where('id', '=', 'cs_stop_round')
      .execute();
    await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const release = () => {
      for (const res of held.splice(0)) res.destroy();
      gateway.closeAllConnections();
      gateway.close();
    };
    return { s, port, dir, release };
  }

  it('stops taking requests at once, though a maintenance round is still waiting', async () => {
    const { s, port, release } = await bffWithRoundWaiting();
    let closed = false;
    try {
      const health = () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 'refused',
        );
      expect(await health()).toBe(200);
      const closing = s.close().then(() => (closed = true));
      // The round still waits on the gateway; new requests are refused meanwhile.
      await expect.poll(health, { timeout: 5_000 }).toBe('refused');
      expect(closed).toBe(false);
      release();
      await closing;
    } finally {
      release();
      if (!closed) await s.close().catch(() => undefined);
    }
  });

  it('waits for a round under way no longer than BFF_STOP_GRACE_MS; its lease lapses', async () => {
    const { s, dir, release } = await bffWithRoundWaiting({ BFF_STOP_GRACE_MS: '300' });
    try {
      // The gateway still holds the round's call: the stop ends anyway, the lease kept (a
      // round that ended would have given it up: `until` set to 1970).
      await s.close();
      const db = new Database(join(dir, 'bff.sqlite'), { readonly: true });
      try {
        const lease = db.prepare('select name, until from bff_leases').get() as {
          until: string;
        };
        expect(lease).toMatchObject({ name: 'maintenance' });
        expect(Date.parse(lease.until)).toBeGreaterThan(Date.now());
      } finally {
        db.close();
      }
    } finally {
      release();
    }
  });

  /** The BFF as `npm run bff` runs it, with a 500 ms stop grace. */
  const bundledBff = (sandboxUrl: string) =>
    bffProcess({
      sandboxUrl,
      bundled: true,
      env: {
        BFF_RESOLVE_INTERVAL_MS: '0',
        BFF_WEBHOOK_REGISTER: 'false',
        BFF_STOP_GRACE_MS: '500',
      },
    });

  it('closes stalled connections once BFF_STOP_GRACE_MS is over, and exits', async () => {
    const bff = await bundledBff('http://127.0.0.1:9');
    try {
      await bff.start();
      const { port } = new URL(bff.url);
      // Half a request's headers, and a POST whose body stops short of its length.
      const stalled = [
        'GET /healthz HTTP/1.1\r\nHost: x\r\n',
        'POST /v1/checkout-sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 100\r\n\r\n{"amo',
      ].map(
        (text) =>
          new Promise<Socket>((resolve) => {
            const socket = createConnection(Number(port), '127.0.0.1', () => {
              socket.write(text);
              resolve(socket);
            });
            socket.on('error', () => undefined);
          }),
      );
      const sockets = await Promise.all(stalled);
      const within = await Promise.race([
        bff.terminate().then(() => 'exited'),
        new Promise<string>((r) => setTimeout(() => r('still running'), 10_000)),
      ]);
      for (const socket of sockets) socket.destroy();
      expect(within).toBe('exited');
    } finally {
      await bff.close();
    }
  });

  /**
   * A pay the gateway answers 3 s late, SIGTERM 100 ms into it (well inside the wait, past the
   * 500 ms grace); `abortAfterMs`: the client gives up then. Answers the pay's answer (or the
   * client's error), the exit code and the attempt's status in the store after the exit.
   */
  async function payDuringStop(opts: { abortAfterMs?: number } = {}) {
    const sb = await startSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'bff-stop-pay-'));
    dirs.push(dir);
    const file = join(dir, 'bff.sqlite');
    const bff = await bffProcess({
      sandboxUrl: sb.url,
      bundled: true,
      store: { BFF_DB: file },
      env: {
        BFF_RESOLVE_INTERVAL_MS: '0',
        BFF_WEBHOOK_REGISTER: 'false',
        BFF_STOP_GRACE_MS: '500',
      },
    });
    try {
      await bff.start();
      const call = async (path: string, auth: string, body?: unknown, extra = {}) => {
        const res = await fetch(bff.url + path, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            authorization: `Bearer ${auth}`,
            'content-type': 'application/json',
            ...extra,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          ...(opts.abortAfterMs ? { signal: AbortSignal.timeout(opts.abortAfterMs) } : {}),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const session = await call('/v1/checkout-sessions', MERCHANT_SECRET, {
        amount: 4_200,
        origin: MERCHANT_ORIGIN,
      });
      const secret = session.body.clientSecret as string;
      const key = (await call('/checkout/api/public-key', secret)).body.key as string;
      // The gateway answers the sale 3 s late, well past the grace.
      const fault = await sb.call('POST', '/__sandbox/faults', {
        token: null,
        body: { method: 'POST', path: '/v1/payments', count: 1, latencyMs: 3_000 },
      });
      expect(fault.status).toBe(201);
      const pay = call(
        '/checkout/api/pay',
        secret,
        {
          method: 'credit',
          installments: 1,
          encryptedCard: encryptWithKey(key, '4000000000002701'),
          cardholderName: 'MARIA SILVA',
          deviceInfo: { ...DEVICE_INFO },
          fingerprint: randomUUID(),
        },
        { 'idempotency-key': `idem-${randomUUID()}` },
      ).catch((err: unknown) => ({
        status: `failed: ${String(err)}`,
        body: {} as Record<string, unknown>,
      }));
      await new Promise((r) => setTimeout(r, 100));
      const exit = bff.terminate();
      const answer = await pay;
      const code = await exit;
      const db = new Database(file, { readonly: true });
      try {
        const attempts = db.prepare('select status from payment_attempts').all() as {
          status: string;
        }[];
        return { answer, code, attempts: attempts.map((a) => a.status) };
      } finally {
        db.close();
      }
    } finally {
      await bff.close();
      await sb.close();
    }
  }

  it('answers a pay under way past BFF_STOP_GRACE_MS, then exits 0', async () => {
    const { answer, code, attempts } = await payDuringStop();
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.status).toBe('succeeded');
    expect(code).toBe(0);
    expect(attempts).toEqual(['succeeded']);
  });

  it('settles a pay under way whose client left before the store closes', async () => {
    // The client gives up 1 s in (the frame's own timeout, a closed tab): its socket closes,
    // and with it the server; the handler runs on and settles its attempt before the exit.
    const { answer, code, attempts } = await payDuringStop({ abortAfterMs: 1_000 });
    expect(String(answer.status)).toMatch(/^failed/);
    expect(code).toBe(0);
    expect(attempts).toEqual(['succeeded']);
  });

  it('a BFF that cannot listen starts no maintenance round that runs on', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'bff-listen-'));
    dirs.push(dir);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(line) },
    });
    try {
      const env = readBffEnv({
        BFF_DB: join(dir, 'bff.sqlite'),
        BFF_PORT: String(port),
        BFF_RESOLVE_INTERVAL_MS: '50',
        BFF_WEBHOOK_REGISTER: 'false',
      });
      await expect(startBff(env, { logger })).rejects.toThrow(/BFF_PORT=\d+ is in use/);
      const after = lines.length;
      await new Promise((r) => setTimeout(r, 400));
      // Eight rounds would have run on a closed store, each logging its failure.
      expect(lines.slice(after)).toEqual([]);
    } finally {
      taken.close();
    }
  });
});
