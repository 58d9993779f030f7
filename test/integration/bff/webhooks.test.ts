import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { inboxDb } from '../../../server/bff/webhooks/store';
import { startBff, type TestBff } from '../../support/bff';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// The sandbox delivers through a fetch that can be switched off: the BFF "down".
let down = false;
const switchable: typeof fetch = (input, init) =>
  down ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);

let sb: TestSandbox;
let t: TestBff;
const basicAuth = Buffer.from('gateway:gateway').toString('base64');
const merchant = { authorization: 'Bearer sk_test_bff_integration' };

beforeAll(async () => {
  sb = await startSandbox({ deps: { fetch: switchable } });
  t = await startBff({ sandbox: sb });
  const res = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    token: await sb.token('integration'),
    body: { url: `${t.url}/webhooks/gateway`, basicAuth },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await sb.close();
});

const inbox = () => inboxDb(t.bff.ctx.db);
const receiver = () => webhookReceiverOf(t.bff.ctx);

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 12_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function payThroughBff() {
  const s = await t.createSession({ amount: 5_000 });
  const res = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
  const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
  expect(result.status).toBe('succeeded');
  const d = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
  const payment = (d.body as { payment: { paymentId: string; nsu: string } }).payment;
  return { session: s, paymentId: payment.paymentId, nsu: payment.nsu };
}

const post = (body: unknown, authorization?: string) =>
  t.request('POST', '/webhooks/gateway', {
    body,
    headers: authorization ? { authorization } : {},
  });

const notification = (over: Record<string, unknown> = {}) => ({
  movementId: 900_000_001,
  nsu: '123456789012',
  codAuth: 'ABC123',
  installmentNumber: 1,
  moment: '2026-01-02T10:00:00.000-03:00',
  type: 'TransactionStatus',
  oldValue: 'Authorized',
  newValue: 'Paid',
  ...over,
});

describe('gateway → BFF over loopback', () => {
  it('a payment through the BFF is notified Authorized, stored and matched to its attempt', async () => {
    const p = await payThroughBff();
    const row = await until(() =>
      inbox()
        .selectFrom('webhook_inbox')
        .selectAll()
        .where('nsu', '=', p.nsu)
        .where('new_value', '=', 'Authorized')
        .where('status', '!=', 'received')
        .executeTakeFirst(),
    );
    expect(row).toMatchObject({ status: 'processed', old_value: '', installment_number: 1 });
    expect(row.attempt_id).toMatch(/.+/);

    // Canceled by the acquirer → the BFF marks the payment canceled.
    const ctl = (path: string, body: unknown) =>
      sb.call('POST', `/__sandbox${path}`, { token: null, body });
    const open = await ctl('/cancellation-requests', { paymentId: p.paymentId, description: 'x' });
    const id = (open.body as { id: string }).id;
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' });
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
    const detail = await until(async () => {
      const d = await t.request('GET', `/v1/checkout-sessions/${p.session.id}`, {
        headers: merchant,
      });
      const body = d.body as { payment: { canceledAt: string | null } };
      return body.payment.canceledAt ? body : undefined;
    });
    expect(detail.payment.canceledAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('a Canceled notice with the payment’s NSU but another authorization code touches nothing', async () => {
    const { session, nsu } = await payThroughBff();
    const auth = `Basic ${basicAuth}`;
    // An NSU can come round again (a sequence, a sandbox reset); the code tells payments apart.
    const stranger = notification({
      movementId: 900_000_005,
      nsu,
      codAuth: 'ZZZZZZ',
      oldValue: 'Authorized',
      newValue: 'Canceled',
    });
    expect((await post(stranger, auth)).status).toBe(200);
    await receiver().idle();
    const row = await inbox()
      .selectFrom('webhook_inbox')
      .select(['status', 'attempt_id'])
      .where('movement_id', '=', 900_000_005)
      .executeTakeFirstOrThrow();
    // The ledger has no sale with that code: not confirmed, nothing applied, tried later.
    expect(row).toEqual({ status: 'received', attempt_id: null });
    const d = await t.request('GET', `/v1/checkout-sessions/${session.id}`, { headers: merchant });
    expect((d.body as { payment: { canceledAt: string | null } }).payment.canceledAt).toBeNull();
  });

  it('the BFF down for two hours (sandbox clock) still gets the notification later', async () => {
    down = true;
    const authorized = () =>
      inbox()
        .selectFrom('webhook_inbox')
        .select('movement_id')
        .where('new_value', '=', 'Authorized')
        .execute();
    const before = await authorized();
    const p = await payThroughBff();
    const list = async () =>
      (
        (await sb.call('GET', '/__sandbox/webhook-deliveries?limit=5', { token: null })).body as {
          items: {
            status: string;
            attemptCount: number;
            notification: { nsu: string; newValue: string };
          }[];
        }
      ).items.filter(
        // The Authorized notice: moving the clock may also bring this sale's later ones
        // (a receipt when a São Paulo day ends), listed newest first.
        (d) => d.notification.nsu === p.nsu && d.notification.newValue === 'Authorized',
      );
    await until(async () => (await list())[0]?.attemptCount === 1);
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { hours: 2 } });
    expect((await list())[0]).toMatchObject({ status: 'pending', attemptCount: 4 });
    down = false;
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { minutes: 40 } });
    expect((await list())[0]).toMatchObject({ status: 'delivered', attemptCount: 5 });
    await receiver().idle();
    const after = await inbox()
      .selectFrom('webhook_inbox')
      .selectAll()
      .where('nsu', '=', p.nsu)
      .where('new_value', '=', 'Authorized')
      .execute();
    expect(after.map((r) => r.status)).toEqual(['processed']);
    // Exactly one Authorized notice more: none lost, none stored twice.
    expect((await authorized()).length).toBe(before.length + 1);
  });
});

describe('the receiver', () => {
  it('a duplicate delivery is acknowledged and processed once', async () => {
    const auth = `Basic ${basicAuth}`;
    const n = notification({ movementId: 900_000_010 });
    expect((await post(n, auth)).status).toBe(200);
    expect((await post(n, auth)).status).toBe(200);
    await receiver().idle();
    expect((await post(n, auth)).status).toBe(200);
    await receiver().idle();
    const rows = await inbox()
      .selectFrom('webhook_inbox')
      .selectAll()
      .where('movement_id', '=', 900_000_010)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ duplicates: 2, status: 'received', tries: 1 });
    const processed = t.logs.filter(
      (l) => l.includes('"webhook.unconfirmed"') && l.includes('"movementId":900000010'),
    );
    expect(processed).toHaveLength(1);
  });

  it.each([
    ['no header', undefined],
    ['wrong password', `Basic ${Buffer.from('gateway:nope').toString('base64')}`],
    ['wrong user', `Basic ${Buffer.from('intruder:gateway').toString('base64')}`],
    ['no colon', `Basic ${Buffer.from('gatewaygateway').toString('base64')}`],
    ['bearer', `Bearer ${basicAuth}`],
  ])('401 with %s, and nothing stored', async (_why, authorization) => {
    const res = await post(notification({ movementId: 900_000_020 }), authorization);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    const row = await inbox()
      .selectFrom('webhook_inbox')
      .select('movement_id')
      .where('movement_id', '=', 900_000_020)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it.each([
    [{ movementId: '1' }, 'movementId'],
    [{ movementId: -1 }, 'movementId'],
    [{ nsu: '' }, 'nsu'],
    [{ nsu: 'x'.repeat(101) }, 'nsu'],
    [{ codAuth: 'x'.repeat(31) }, 'codAuth'],
    [{ moment: 'yesterday' }, 'moment'],
    [{ installmentNumber: 1.5 }, 'installmentNumber'],
    [{ newValue: undefined }, 'newValue'],
  ])('400 for %o', async (over, tag) => {
    const res = await post(
      notification({ movementId: 900_000_030, ...over }),
      `Basic ${basicAuth}`,
    );
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[])[0]?.tag).toBe(tag);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await t.request('POST', '/webhooks/gateway', {
      body: '{"movementId":',
      headers: { authorization: `Basic ${basicAuth}` },
    });
    expect(res.status).toBe(400);
  });

  it('never logs the credentials it was sent', () => {
    const joined = t.logs.join('\n');
    expect(joined).not.toContain(basicAuth);
    expect(joined).not.toContain(Buffer.from('gateway:nope').toString('base64'));
  });

  it('500 when the notification cannot be stored (the gateway retries)', async () => {
    await sql`alter table webhook_inbox rename to webhook_inbox_away`.execute(t.bff.ctx.db);
    try {
      const res = await post(notification({ movementId: 900_000_040 }), `Basic ${basicAuth}`);
      expect(res.status).toBe(500);
    } finally {
      await sql`alter table webhook_inbox_away rename to webhook_inbox`.execute(t.bff.ctx.db);
    }
  });
});
