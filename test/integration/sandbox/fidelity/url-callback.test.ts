import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { creditBody, expectFieldError, plainCardInfo } from '../payment-helpers';
import { startReceiver, waitFor } from '../webhooks/receiver';

const base = { now: () => new Date('2026-06-02T15:00:00Z') };
let sb: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  sb = await startSandbox({ deps: { clock: new OffsetClock(0, base) } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sb.close();
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.status = 200;
});

const pay = async (card: string, urlCallBack: string, target = sb) => {
  const res = await target.call('POST', '/v1/payments', {
    body: { ...creditBody(plainCardInfo(target, card)), urlCallBack },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const auth = (res.body as { paymentAuthorization: Record<string, string> }).paymentAuthorization;
  return auth as { paymentId: string; nsu: string; authorizationCode: string };
};
const control = (path: string, body: unknown, target = sb) =>
  target.call('POST', `/__sandbox${path}`, { token: null, body });
type Delivery = { status: string; attemptCount: number; body: Record<string, unknown> };
const deliveries = async (paymentId: string, target = sb) =>
  (
    (await target.call('GET', `/__sandbox/callback-deliveries?paymentId=${paymentId}`, {
      token: null,
    })) as { body: { items: Delivery[] } }
  ).body.items;

// Spec: "urlCallBack | string | no | 500 | merchant callback URL for payment flow updates";
// the body is ours (DESIGN §5).
describe('urlCallBack: every status change of the payment is POSTed there', () => {
  it('authorized, refund approved, canceled: one JSON body each, in order', async () => {
    const auth = await pay('4000000000002701', `${receiver.url}/hook`);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.body).toEqual({
      paymentId: auth.paymentId,
      referenceTransaction: 'order-1',
      status: 'Authorized',
      returnCode: '00',
      nsu: auth.nsu,
      authorizationCode: auth.authorizationCode,
      amount: 10_000,
      moment: expect.stringMatching(/^2026-06-02T12:00:00\.\d{3}-03:00$/),
    });
    // No card data in what goes out.
    expect(JSON.stringify(receiver.received[0]!.body)).not.toMatch(/4000000000002701|2701/);

    const opened = await control('/cancellation-requests', {
      paymentId: auth.paymentId,
      description: 'cliente desistiu',
    });
    const id = (opened.body as { id: string }).id;
    await control(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' });
    await control(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
    await waitFor(() => receiver.received.length === 3);
    expect(receiver.received.map((r) => r.body.status)).toEqual([
      'Authorized',
      'RefundApproved',
      'Canceled',
    ]);
  });

  it('a declined authorization is told too, with its return code', async () => {
    const auth = await pay('4000000000009995', `${receiver.url}/hook`);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.body).toMatchObject({
      paymentId: auth.paymentId,
      status: 'Declined',
      returnCode: '51',
      authorizationCode: '',
    });
  });

  it.each(['/relative', 'ftp://example.test/x', 'javascript:alert(1)', 'not a url'])(
    'a urlCallBack %j that is not an absolute http(s) URL is a 400',
    async (urlCallBack) => {
      const res = await sb.call('POST', '/v1/payments', {
        body: { ...creditBody(plainCardInfo(sb, '4000000000002701')), urlCallBack },
      });
      expectFieldError(res, 400, 'urlCallBack');
    },
  );

  it('no urlCallBack, no callback', async () => {
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000002701')),
    });
    const id = (res.body as { paymentAuthorization: { paymentId: string } }).paymentAuthorization
      .paymentId;
    expect(await deliveries(id)).toEqual([]);
  });

  it('retries on the webhook schedule (0, +5 s, +5 min…); 2xx delivers; 400 is final', async () => {
    receiver.status = 503;
    const auth = await pay('4000000000002701', `${receiver.url}/hook`);
    await waitFor(async () => (await deliveries(auth.paymentId))[0]?.attemptCount === 1);
    await control('/clock/advance', { seconds: 4 });
    expect(receiver.received).toHaveLength(1);
    await control('/clock/advance', { seconds: 1 });
    expect(receiver.received).toHaveLength(2);
    receiver.status = 200;
    await control('/clock/advance', { minutes: 5 });
    expect(receiver.received).toHaveLength(3);
    expect((await deliveries(auth.paymentId))[0]).toMatchObject({
      status: 'delivered',
      attemptCount: 3,
    });

    receiver.status = 400;
    const refused = await pay('4000000000002701', `${receiver.url}/hook`);
    await waitFor(async () => (await deliveries(refused.paymentId))[0]?.status === 'failed');
    // Moves the clock past the token's hour: keep it the describe's last test.
    await control('/clock/advance', { hours: 1 });
    expect(receiver.received).toHaveLength(4);
  });
});

describe('urlCallBack outbox is durable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callbacks-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a sandbox restarted mid-backoff on the same file delivers the callback', async () => {
    const dbUrl = join(dir, 'sandbox.sqlite');
    receiver.status = 503;
    const first = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(0, base) } });
    const auth = await pay('4000000000002701', `${receiver.url}/hook`, first);
    await waitFor(async () => (await deliveries(auth.paymentId, first))[0]?.attemptCount === 1);
    await first.close();

    receiver.status = 200;
    const second = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(0, base) } });
    try {
      await control('/clock/advance', { seconds: 5 }, second);
      expect(receiver.received.map((r) => r.body.paymentId)).toEqual([
        auth.paymentId,
        auth.paymentId,
      ]);
      expect((await deliveries(auth.paymentId, second))[0]).toMatchObject({
        status: 'delivered',
        attemptCount: 2,
      });
    } finally {
      await second.close();
    }
  });
});
