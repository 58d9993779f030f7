import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { GatewayTimeoutError } from '../../../server/gateway/errors';
import { MAX_CONFIRM_TRIES } from '../../../server/bff/webhooks/confirm';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { inboxDb } from '../../../server/bff/webhooks/store';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';

// Webhooks move money state only once the gateway's ledger confirms them (issue 9 §3, §6).
let t: TestBff;
const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

beforeAll(async () => {
  t = await startBff({ config: { payRateLimitPerMinute: 10_000 } });
  const res = await t.sandbox.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    token: await t.sandbox.token('integration'),
    body: { url: `${t.url}/webhooks/gateway`, basicAuth: basic.slice(6) },
  });
  expect(res.status).toBe(200);
});
afterAll(() => t.close());

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

interface Payment {
  paymentId: string;
  nsu: string;
  authorizationCode: string;
  canceledAt: string | null;
}
const payment = async (sessionId: string) =>
  (
    (await t.request('GET', `/v1/checkout-sessions/${sessionId}`, { headers: merchant })).body as {
      payment: Payment;
    }
  ).payment;

async function pay(body: Record<string, unknown> = { amount: 6_100 }) {
  const s = await t.createSession(body);
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' }),
  );
  expect((res.body as PayResult).status).toBe('succeeded');
  return { sessionId: s.id, ...(await payment(s.id)) };
}

const deliver = async (body: Record<string, unknown>) => {
  const res = await t.request('POST', '/webhooks/gateway', {
    body: {
      installmentNumber: 1,
      moment: '2026-05-01T10:00:00.000-03:00',
      type: 'TransactionStatus',
      oldValue: '',
      ...body,
    },
    headers: { authorization: basic },
  });
  expect(res.status).toBe(200);
};

const rowsOf = (movementId: number) =>
  inbox()
    .selectFrom('webhook_inbox')
    .selectAll()
    .where('movement_id', '=', movementId)
    .orderBy('received_at')
    .execute();

/** Runs the confirmation retries until none is left (the BFF clock jumps past each wait). */
async function exhaustRetries() {
  for (let i = 0; i < MAX_CONFIRM_TRIES + 1; i++) {
    t.clock.advance(2 * 3_600_000);
    await receiver().processAll();
  }
}

describe('webhooks confirmed against the gateway before they apply', () => {
  it('forged movementIds ahead of the gateway’s do not hide its real movements', async () => {
    const deliveries = await t.sandbox.call('GET', '/__sandbox/webhook-deliveries?limit=1', {
      token: null,
    });
    const last = (deliveries.body as { items: { id: number }[] }).items[0]?.id ?? 0;
    for (let id = last + 1; id <= last + 5; id++) {
      await deliver({ movementId: id, nsu: `99${id}`, codAuth: 'FORGED', newValue: 'Authorized' });
    }
    await receiver().idle();
    const p = await pay();
    // The gateway's own movement for this payment carries one of the forged ids.
    const real = await until(() =>
      inbox()
        .selectFrom('webhook_inbox')
        .selectAll()
        .where('nsu', '=', p.nsu)
        .where('status', '=', 'processed')
        .executeTakeFirst(),
    );
    expect(Number(real.movement_id)).toBe(last + 1);
    expect(real.attempt_id).toMatch(/^pa_/);
    const both = await rowsOf(last + 1);
    expect(both).toHaveLength(2);
    expect(both.map((r) => r.conflict)).toEqual([1, 1]);
    const forged = both.find((r) => r.nsu !== p.nsu)!;
    // The forged body is kept but applies nothing: the ledger does not know it.
    expect(forged).toMatchObject({ status: 'received', attempt_id: null });
    expect(t.logs.some((l) => l.includes('"webhook.conflict"'))).toBe(true);
    await exhaustRetries();
    expect((await rowsOf(last + 1)).find((r) => r.nsu !== p.nsu)?.status).toBe('unverified');
    t.clock.reset(0);
  });

  it('a forged Canceled with the real NSU and code never cancels an approved payment', async () => {
    const p = await pay({ amount: 6_200 });
    await deliver({
      movementId: 700_000_001,
      nsu: p.nsu,
      codAuth: p.authorizationCode,
      oldValue: 'Authorized',
      newValue: 'Canceled',
    });
    await receiver().idle();
    expect((await rowsOf(700_000_001))[0]).toMatchObject({ status: 'received', tries: 1 });
    expect((await payment(p.sessionId)).canceledAt).toBeNull();
    await exhaustRetries();
    const [row] = await rowsOf(700_000_001);
    expect(row).toMatchObject({ status: 'unverified', tries: MAX_CONFIRM_TRIES, attempt_id: null });
    expect((await payment(p.sessionId)).canceledAt).toBeNull();
    expect(t.logs.some((l) => l.includes('"webhook.unverified"'))).toBe(true);
    t.clock.reset(0);

    // The same notice once the gateway did cancel it (its ledger says C) applies.
    const ctl = (path: string, body: unknown) =>
      t.sandbox.call('POST', `/__sandbox${path}`, { token: null, body });
    const open = await ctl('/cancellation-requests', { paymentId: p.paymentId, description: 'x' });
    const id = (open.body as { id: string }).id;
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' });
    await ctl(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
    const canceled = await until(async () => (await payment(p.sessionId)).canceledAt);
    expect(canceled).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('a Canceled the ledger cannot be read for is not given up, and applies once it can', async () => {
    const p = await pay({ amount: 6_300 });
    await receiver().idle();
    // The gateway's ledger search fails for hours (far past the 8 tries of a notice the ledger
    // does not show) while the gateway cancels the payment and notifies it.
    await t.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        method: 'POST',
        path: '/api/transaction/concil/search-by-code',
        count: 1_000,
        status: 500,
      },
    });
    try {
      const ctl = (path: string, body: unknown) =>
        t.sandbox.call('POST', `/__sandbox${path}`, { token: null, body });
      const open = await ctl('/cancellation-requests', {
        paymentId: p.paymentId,
        description: 'x',
      });
      const id = (open.body as { id: string }).id;
      await ctl(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' });
      await ctl(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
      const canceledNotice = () =>
        inbox()
          .selectFrom('webhook_inbox')
          .selectAll()
          .where('nsu', '=', p.nsu)
          .where('new_value', '=', 'Canceled')
          .executeTakeFirst();
      await until(async () => (await canceledNotice())?.tries);
      await exhaustRetries();
      expect(await canceledNotice()).toMatchObject({ status: 'received' });
      expect((await canceledNotice())!.tries).toBeGreaterThan(MAX_CONFIRM_TRIES);
      expect((await payment(p.sessionId)).canceledAt).toBeNull();
    } finally {
      await t.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    }
    // The ledger reads again: the next try confirms and applies it.
    t.clock.advance(2 * 3_600_000);
    await receiver().processAll();
    t.clock.reset(0);
    expect((await payment(p.sessionId)).canceledAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('a notice with no authorization code the ledger does not show ends unverified, not retried forever', async () => {
    await deliver({ movementId: 700_000_101, nsu: '99700101', codAuth: '', newValue: 'Canceled' });
    await receiver().idle();
    await exhaustRetries();
    t.clock.reset(0);
    const [row] = await rowsOf(700_000_101);
    expect(row).toMatchObject({
      status: 'unverified',
      tries: MAX_CONFIRM_TRIES,
      misses: MAX_CONFIRM_TRIES,
      attempt_id: null,
    });
  });

  it('a sale with no authorization code: its notice is confirmed by NSU and applied', async () => {
    const p = await pay({ amount: 6_400 });
    await receiver().idle();
    // The ledger and the pay answer carry no authorization code for this sale.
    await t.sandbox.sandbox.ctx.db
      .updateTable('concil_installments')
      .set({ cod_auth: '' })
      .where('nsu', '=', p.nsu)
      .execute();
    await t.bff.ctx.db
      .updateTable('payment_attempts')
      .set({ authorization_code: null })
      .where('nsu', '=', p.nsu)
      .execute();
    await deliver({ movementId: 700_000_102, nsu: p.nsu, codAuth: '', newValue: 'Authorized' });
    await receiver().idle();
    const [row] = await rowsOf(700_000_102);
    expect(row).toMatchObject({ status: 'processed', tries: 1 });
    expect(row!.attempt_id).toMatch(/^pa_/);
  });

  it('a subscription’s first billing notification is linked to its checkout session', async () => {
    const plan = await t.sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Evidence monthly',
        description: 'Evidence monthly membership',
        paymentMethod: 'CreditCard',
        amount: 29.9,
        planType: 'Monthly',
      },
    });
    expect(plan.status).toBe(200);
    const s = await t.request('POST', '/v1/checkout-sessions', {
      headers: merchant,
      body: { origin: MERCHANT_ORIGIN, planId: plan.body as string },
    });
    const created = s.body as { id: string; clientSecret: string };
    const res = await t.pay(
      created.clientSecret,
      await t.payBody(created.clientSecret, '4000000000002701', { method: 'credit' }),
    );
    const result = res.body as Extract<PayResult, { status: 'succeeded' }>;
    expect(result.status).toBe('succeeded');
    expect(result.payment.paymentId).not.toBe('');
    const p = await payment(created.id);
    // Delivered while the subscription was being created: confirmed at the next round.
    await until(() =>
      inbox()
        .selectFrom('webhook_inbox')
        .select('status')
        .where('nsu', '=', p.nsu)
        .executeTakeFirst(),
    );
    await receiver().idle();
    t.clock.advance(60_000);
    await receiver().processAll();
    t.clock.reset(0);
    const notices = await until(async () => {
      const list = await t.request('GET', '/v1/webhook-notifications?limit=50', {
        headers: merchant,
      });
      const items = (
        list.body as { data: { nsu: string; status: string; sessionId: string | null }[] }
      ).data.filter((n) => n.nsu === p.nsu && n.status !== 'received');
      return items.length > 0 ? items : undefined;
    });
    expect(notices[0]).toMatchObject({ status: 'processed', sessionId: created.id });
  });
});

describe('a notification confirmed while the pay call is still waiting', () => {
  const detail = async (id: string) =>
    (await t.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as {
      status: string;
      attempts: { status: string }[];
      payment: Payment | null;
    };

  it('settles the payment; the call that then loses its answer does not unsettle it', async () => {
    const s = await t.createSession({ amount: 6_250 });
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    const gateway = t.bff.ctx.gateway;
    const create = gateway.createCreditPayment.bind(gateway);
    gateway.createCreditPayment = async (req, o) => {
      await create(req, o);
      // The gateway charged and notified at once; its answer is slow. The notification is
      // confirmed against the ledger and links the sale to the attempt by its reference.
      await until(async () => (await detail(s.id)).status === 'succeeded');
      throw new GatewayTimeoutError({
        status: 0,
        operation: 'createCreditPayment',
        sent: true,
        timeoutMs: 30_000,
      });
    };
    let res;
    try {
      res = await t.pay(s.clientSecret, body);
    } finally {
      gateway.createCreditPayment = create;
    }
    // The shopper is told what the ledger said, not "being confirmed" (the call's own view).
    const d = await detail(s.id);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect(d.payment?.paymentId).toBeTruthy();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'succeeded',
      payment: { paymentId: d.payment!.paymentId },
    });
  });
});
