import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { webhooksOf, type NotifyInput } from '../../../../server/sandbox/webhooks/service';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { basic, startReceiver, waitFor } from './receiver';

let sb: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const auth = basic('gateway', 's3cr3t-Pa55');

beforeAll(async () => {
  sb = await startSandbox({
    deps: { clock: new OffsetClock(0, { now: () => new Date('2026-05-04T15:00:00Z') }) },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sb.close();
  await receiver.close();
});
beforeEach(async () => {
  // Fresh webhook state per test (a full reset would also revoke the cached tokens). The URL
  // goes through the API, so the service forgets it too.
  await api('DELETE', '/api/webhooks/subscriptions?accountNumber=1001');
  for (const t of ['webhook_subscriptions', 'webhook_notifications', 'webhook_attempts'] as const) {
    await sb.sandbox.ctx.db.deleteFrom(t).execute();
  }
  receiver.received.length = 0;
  receiver.status = 200;
});

/** Integration API call with a fresh token (tests move the clock past token expiry). */
const api = async (method: string, path: string, body?: unknown) =>
  sb.call(method, path, {
    token: await sb.token('integration'),
    ...(body === undefined ? {} : { body }),
  });

const subscribe = (url = `${receiver.url}/hook`, basicAuth = auth, accountNumber = '1001') =>
  api('POST', `/api/webhooks/subscriptions?accountNumber=${accountNumber}`, { url, basicAuth });

const event = (over: Partial<NotifyInput> = {}): NotifyInput => ({
  accountNumber: '1001',
  nsu: '000123',
  codAuth: 'A1B2C3',
  installmentNumber: 1,
  oldValue: '',
  newValue: 'Authorized',
  ...over,
});

type Delivery = {
  id: number;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  attempts: { statusCode: number | null; error: string | null }[];
};
async function deliveries(): Promise<Delivery[]> {
  return (
    (await sb.call('GET', '/__sandbox/webhook-deliveries', { token: null })).body as {
      items: Delivery[];
    }
  ).items;
}
const advance = (body: Record<string, number>) =>
  sb.call('POST', '/__sandbox/clock/advance', { token: null, body });

describe('webhook management', () => {
  it('POST sets, GET reads, DELETE removes the one URL of the account', async () => {
    expect((await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001')).status).toBe(
      404,
    );
    const set = await subscribe(`${receiver.url}/a`);
    expect(set).toMatchObject({ status: 200, body: { url: `${receiver.url}/a` } });
    await subscribe(`${receiver.url}/b`);
    expect((await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001')).body).toEqual({
      url: `${receiver.url}/b`,
    });
    const del = await sb.call('DELETE', '/api/webhooks/subscriptions?accountNumber=1001');
    expect(del).toMatchObject({ status: 200, body: { url: `${receiver.url}/b` } });
    expect((await sb.call('DELETE', '/api/webhooks/subscriptions?accountNumber=1001')).status).toBe(
      404,
    );
  });

  it('refuses a URL whose host does not accept a connection (spec: "valid and reachable")', async () => {
    const gone = await startReceiver();
    const closed = `${gone.url}/hook`;
    await gone.close();
    const res = await subscribe(closed);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      { tag: 'url', description: expect.stringMatching(/^url: is not reachable: .*ECONNREFUSED/) },
    ]);
    expect((await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001')).status).toBe(
      404,
    );
    expect((await subscribe(`${receiver.url}/hook`)).status).toBe(200);
  });

  it.each([
    [{ url: 'ftp://example.test/x', basicAuth: auth }, 'url'],
    [{ url: '/relative', basicAuth: auth }, 'url'],
    [{ url: `https://example.test/${'x'.repeat(2048)}`, basicAuth: auth }, 'url'],
    [{ url: 'https://example.test/', basicAuth: 'not base64!' }, 'basicAuth'],
    [
      { url: 'https://example.test/', basicAuth: Buffer.from('nocolon').toString('base64') },
      'basicAuth',
    ],
    [{ url: 'https://example.test/' }, 'basicAuth'],
    [{ url: 'https://example.test/', basicAuth: auth, extra: 1 }, 'body'],
  ])('refuses body %# naming %s', async (body, field) => {
    const res = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', { body });
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[])[0]?.tag).toBe(field);
  });

  it('refuses a reachable URL that carries a user name or password (stored and logged as is)', async () => {
    const withCredentials = receiver.url.replace('://', '://gateway:s3cr3t@') + '/hook';
    const res = await subscribe(withCredentials);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      {
        tag: 'url',
        description: 'url: must not carry a user name or password (send credentials in basicAuth)',
      },
    ]);
    expect(
      await sb.sandbox.ctx.db.selectFrom('webhook_subscriptions').selectAll().execute(),
    ).toEqual([]);
  });

  it('accountNumber is required, numeric, and must be the token’s own', async () => {
    for (const [qs, status] of [
      ['', 400],
      ['?accountNumber=abc', 400],
      ['?accountNumber=2002', 403],
    ] as const) {
      for (const method of ['GET', 'DELETE']) {
        expect(
          (await sb.call(method, `/api/webhooks/subscriptions${qs}`)).status,
          `${method} ${qs}`,
        ).toBe(status);
      }
    }
    expect((await subscribe(undefined, undefined, '2002')).status).toBe(403);
  });

  it('stores basicAuth encrypted, never in plain text or base64', async () => {
    await subscribe();
    const row = await sb.sandbox.ctx.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.basic_auth_enc).not.toContain(auth);
    expect(row.basic_auth_enc).not.toContain('s3cr3t');
    expect(row.basic_auth_enc.startsWith('v1.')).toBe(true);
  });
});

describe('delivery log', () => {
  it.each(['status=bogus', 'limit=0', 'limit=5000', 'accountNumber=x'])(
    'GET /__sandbox/webhook-deliveries?%s is 400',
    async (qs) => {
      const res = await sb.call('GET', `/__sandbox/webhook-deliveries?${qs}`, { token: null });
      expect(res.status).toBe(400);
    },
  );
});

describe('delivery', () => {
  it('POSTs the notification with Basic auth, once, with every spec field', async () => {
    await subscribe();
    const [id] = await webhooksOf(sb.sandbox.ctx).notify([event()]);
    await waitFor(() => receiver.received.length === 1);
    const got = receiver.received[0]!;
    expect(got.authorization).toBe(`Basic ${auth}`);
    expect(got.body).toEqual({
      movementId: id,
      nsu: '000123',
      codAuth: 'A1B2C3',
      installmentNumber: 1,
      moment: expect.stringMatching(/^2026-05-04T12:00:00\.000-03:00$/),
      type: 'TransactionStatus',
      oldValue: '',
      newValue: 'Authorized',
    });
    await waitFor(async () => (await deliveries())[0]?.status === 'delivered');
    const [second] = await webhooksOf(sb.sandbox.ctx).notify([
      event({ oldValue: 'Authorized', newValue: 'Canceled' }),
    ]);
    expect(second).toBeGreaterThan(id!);
  });

  it('records nothing for an account without a URL, and notifies from the moment one is set', async () => {
    const service = webhooksOf(sb.sandbox.ctx);
    expect(await service.notify([event({ nsu: '000001' })])).toEqual([]);
    await subscribe();
    const [id] = await service.notify([event({ nsu: '000002' })]);
    expect(id).toEqual(expect.any(Number));
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received.map((r) => (r.body as { nsu: string }).nsu)).toEqual(['000002']);
  });

  it('retries a 500 on the schedule and stops at a 2xx', async () => {
    await subscribe();
    receiver.status = 500;
    await webhooksOf(sb.sandbox.ctx).notify([event()]);
    await waitFor(() => receiver.received.length === 1);
    await waitFor(async () => (await deliveries())[0]?.attemptCount === 1);
    let [d] = await deliveries();
    const fiveSecondsOn = new Date(sb.clock.now().getTime() + 5000).toISOString();
    expect(d).toMatchObject({ status: 'pending', nextAttemptAt: fiveSecondsOn });
    await advance({ seconds: 4 });
    expect(receiver.received).toHaveLength(1);
    await advance({ seconds: 1 });
    expect(receiver.received).toHaveLength(2);
    receiver.status = 204;
    await advance({ minutes: 5 });
    expect(receiver.received).toHaveLength(3);
    [d] = await deliveries();
    expect(d).toMatchObject({ status: 'delivered', attemptCount: 3, nextAttemptAt: null });
    expect(d!.attempts.map((a) => a.statusCode)).toEqual([500, 500, 204]);
    await advance({ days: 3 });
    expect(receiver.received).toHaveLength(3);
  });

  it('a 400 is final', async () => {
    await subscribe();
    receiver.status = 400;
    await webhooksOf(sb.sandbox.ctx).notify([event()]);
    await waitFor(async () => (await deliveries())[0]?.status === 'failed');
    await advance({ days: 4 });
    expect(receiver.received).toHaveLength(1);
  });

  it('an endpoint down for two hours still gets it; ten attempts at most', async () => {
    // Registration checks the URL is reachable: register a receiver, then take it down.
    const subscribeThenDown = async () => {
      const gone = await startReceiver();
      await subscribe(`${gone.url}/hook`);
      await gone.close();
    };
    await subscribeThenDown();
    await webhooksOf(sb.sandbox.ctx).notify([event(), event({ installmentNumber: 2 })]);
    await waitFor(async () => (await deliveries()).every((d) => d.attemptCount === 1));
    await advance({ hours: 2 });
    // 0, +5 s, +5 min, +30 min made it 4 attempts; the next is 2 h after the last.
    expect((await deliveries()).map((d) => d.attemptCount)).toEqual([4, 4]);
    expect((await deliveries())[0]!.attempts[0]!.error).toMatch(/ECONNREFUSED|fetch failed/);
    await subscribe(); // the receiver is back (a new URL, as after a redeploy)
    await advance({ minutes: 36 }); // the fifth attempt: 2 h after the fourth (at 35 min 5 s)
    expect(receiver.received.map((r) => r.body.installmentNumber).sort()).toEqual([1, 2]);
    expect((await deliveries()).map((d) => d.status)).toEqual(['delivered', 'delivered']);

    await subscribeThenDown();
    await webhooksOf(sb.sandbox.ctx).notify([event({ installmentNumber: 3 })]);
    await advance({ days: 4 });
    const [last] = await deliveries();
    expect(last).toMatchObject({ status: 'failed', attemptCount: 10, nextAttemptAt: null });
  });

  it('DELETE stops pending notifications; redeliver sends one again', async () => {
    await subscribe();
    receiver.status = 503;
    await webhooksOf(sb.sandbox.ctx).notify([event()]);
    await waitFor(async () => (await deliveries())[0]?.attemptCount === 1);
    await api('DELETE', '/api/webhooks/subscriptions?accountNumber=1001');
    expect((await deliveries())[0]!.status).toBe('canceled');
    await advance({ hours: 1 });
    expect(receiver.received).toHaveLength(1);
    // Without a subscription nothing is queued at all.
    expect(await webhooksOf(sb.sandbox.ctx).notify([event()])).toEqual([]);

    const id = (await deliveries())[0]!.id;
    expect(
      (await sb.call('POST', `/__sandbox/webhook-deliveries/${id}/redeliver`, { token: null }))
        .status,
    ).toBe(409);
    await subscribe();
    receiver.status = 200;
    const re = await sb.call('POST', `/__sandbox/webhook-deliveries/${id}/redeliver`, {
      token: null,
    });
    expect(re.status).toBe(202);
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.received[1]!.body.movementId).toBe(id);
    expect(
      (await sb.call('POST', '/__sandbox/webhook-deliveries/999999/redeliver', { token: null }))
        .status,
    ).toBe(404);
    expect(
      (await sb.call('POST', '/__sandbox/webhook-deliveries/x/redeliver', { token: null })).status,
    ).toBe(400);
  });
});
