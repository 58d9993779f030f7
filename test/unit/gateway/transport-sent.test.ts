import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClientOptions } from '../../../server/gateway/client';
import { GatewayTimeoutError } from '../../../server/gateway/errors';
import type { CreditPaymentRequest } from '../../../server/gateway/schemas';
import { TokenManager } from '../../../server/gateway/token-manager';
import { startFakeGateway, type FakeGateway } from './fake-gateway';

/*
 * `sent` on a timeout or network error says whether the request may have reached the gateway
 * (for a payment: "may have charged", the session waits for the resolver). It turns true only
 * once the request was handed to a connected socket: a call still waiting for a connection
 * of the agent, or whose connection never completed, was certainly not processed.
 */

let gw: FakeGateway | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await gw?.close();
  gw = undefined;
});

function client(url: string, over: Partial<GatewayClientOptions> = {}) {
  const gc = createGatewayClient({
    gatewayBaseUrl: url,
    credentials: { gateway: { userName: 'merchant', password: 'pw' } },
    ...over,
  });
  cleanups.push(() => gc.close());
  return gc;
}

const credit: CreditPaymentRequest = {
  payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 },
  sellerInfo: { codeAntiFraud: '3f2a1c4e-8b9d-4e6f-a1b2-c3d4e5f6a7b8' },
  cardInfo: { cardholderName: 'ANA SOUZA', encryptedCard: 'c2VjcmV0LWNpcGhlcnRleHQ=' },
};

const approved = {
  paymentAuthorization: {
    returnCode: '00',
    description: 'Approved',
    paymentId: 'pay_1',
    authorizationCode: 'A1B2C3',
    amount: 1000,
    releaseAt: '2026-01-01T00:00:00.000Z',
  },
};

const payments = (g: FakeGateway) => g.state.requests.filter((r) => r.path === '/v1/payments');

/** A gateway that holds every payment until `release()`; `arrived` resolves on the first. */
async function holdingGateway() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const first = new Promise<void>((r) => (arrived = r));
  gw = await startFakeGateway((app) =>
    app.post('/v1/payments', async (c) => {
      arrived();
      await released;
      return c.json(approved);
    }),
  );
  return { gw, release, arrived: first };
}

/**
 * A loopback port whose connections never complete: a listener with a backlog of 1 in a
 * worker whose event loop is blocked, so it never accepts; once its accept queue is full the
 * kernel drops further SYNs (what a firewall dropping the BFF's address looks like).
 */
async function unacceptingPort(): Promise<number> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const server = require('node:net').createServer();
     server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(workerData, 0, 0);
       server.close();
     });`,
    { eval: true, workerData: flag },
  );
  const port = await new Promise<number>((r) => worker.once('message', r));
  const fillers: Socket[] = [];
  cleanups.push(async () => {
    for (const s of fillers) s.destroy();
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    await worker.terminate();
  });
  // Fill the accept queue: connect until one connection does not complete.
  for (let i = 0; i < 10; i++) {
    const s = connect(port, '127.0.0.1').on('error', () => undefined);
    fillers.push(s);
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!connected) return port;
  }
  throw new Error('the accept queue never filled');
}

describe('gateway transport: sent only once the request is on a connected socket', () => {
  it('a call still queued for one of maxSockets connections times out with sent = false', async () => {
    const g = await holdingGateway();
    const gc = client(g.gw.url, { maxSockets: 1 });
    const first = gc.createCreditPayment(credit, { timeoutMs: 10_000 });
    await g.arrived; // the only connection is busy with the first payment
    const err = await gc.createCreditPayment(credit, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(false);
    g.release();
    expect((await first).paymentAuthorization.paymentId).toBe('pay_1');
    expect(payments(g.gw)).toHaveLength(1);
  });

  it('a queued call handed a freed connection is sent on it: its timeout is sent = true', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    let n = 0;
    gw = await startFakeGateway((app) =>
      app.post('/v1/payments', async (c) => {
        if (++n > 1) return new Promise<Response>(() => {}); // later ones: no answer
        arrived();
        await released;
        return c.json(approved);
      }),
    );
    const gc = client(gw.url, { maxSockets: 1 });
    const one = gc.createCreditPayment(credit, { timeoutMs: 10_000 });
    await first;
    const two = gc.createCreditPayment(credit, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    release();
    expect((await one).paymentAuthorization.paymentId).toBe('pay_1');
    const err = await two;
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(true);
    expect(payments(gw)).toHaveLength(2);
  });

  it('a connection that never completes times out with sent = false', async () => {
    const port = await unacceptingPort();
    const base = `http://127.0.0.1:${port}`;
    gw = await startFakeGateway(); // the token comes from here: the wait is the connect
    const issuer = gw.url;
    const tokenManager = new TokenManager({
      fetch: (url, init) => fetch(String(url).replace(base, issuer), init),
    });
    const gc = client(base, { timeoutMs: 500, tokenManager });
    const err = await gc.createCreditPayment(credit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(false);
  });

  it('a call that reached the gateway on a new connection and got no answer is sent = true', async () => {
    const g = await holdingGateway();
    const gc = client(g.gw.url);
    const err = await gc.createCreditPayment(credit, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect((err as GatewayTimeoutError).sent).toBe(true);
    expect(payments(g.gw)).toHaveLength(1);
    g.release();
  });
});
