import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OffsetClock } from '../../../server/lib/clock';
import { failWrites } from '../../support/store-failures';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { creditBody, plainCardInfo } from './payment-helpers';
import { basic, startReceiver } from './webhooks/receiver';

// A cancellation decision (and a block) commits with its ledger rows, webhook notifications
// and urlCallBack in one transaction: a write that fails leaves nothing half-applied.
const dir = mkdtempSync(join(tmpdir(), 'decisions-atomic-'));
const dbUrl = join(dir, 'sandbox.sqlite');
const clock = () => new OffsetClock(0, { now: () => new Date('2026-07-01T15:00:00Z') });
let sb: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  sb = await startSandbox({ dbUrl, deps: { clock: clock() } });
  const set = await sb.call('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    token: await sb.token('integration'),
    body: { url: `${receiver.url}/hook`, basicAuth: basic('gw', 'pw') },
  });
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await sb?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const control = (path: string, body?: unknown) =>
  sb.call('POST', `/__sandbox${path}`, { token: null, ...(body === undefined ? {} : { body }) });

async function pay(): Promise<{ paymentId: string; nsu: string }> {
  const res = await sb.call('POST', '/v1/payments', {
    body: {
      ...creditBody(plainCardInfo(sb, '4000000000002701')),
      urlCallBack: `${receiver.url}/hook`,
    },
  });
  expect(res.status).toBe(200);
  return (res.body as { paymentAuthorization: { paymentId: string; nsu: string } })
    .paymentAuthorization;
}

/** What the decision touches: request, payment, ledger, webhook outbox, callback outbox. */
async function state(paymentId: string, requestId?: string) {
  const db = sb.sandbox.ctx.db;
  const request = requestId
    ? await db
        .selectFrom('cancellation_requests')
        .select('status')
        .where('id', '=', requestId)
        .executeTakeFirstOrThrow()
    : null;
  const payment = await db
    .selectFrom('payments')
    .select('status')
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  const column = async (table: string, name: string, order: string) =>
    (
      await sql<{ v: string }>`select ${sql.ref(name)} as v from ${sql.table(table)}
        where payment_id = ${paymentId} order by ${sql.ref(order)}`.execute(db)
    ).rows.map((r) => r.v);
  const ledger = await column('concil_installments', 'installment_status', 'installment_number');
  const notices = await column('webhook_notifications', 'new_value', 'movement_id');
  const callbacks = await column('payment_callbacks', 'body', 'id');
  return {
    request: request?.status,
    payment: payment.status,
    ledger,
    notices,
    callbacks: callbacks.map((b) => (JSON.parse(b) as { status: string }).status),
  };
}

it('a cancellation whose ledger update fails is not applied, and survives a restart undecided', async () => {
  const p = await pay();
  const open = await control('/cancellation-requests', {
    paymentId: p.paymentId,
    description: 'cliente desistiu',
  });
  const id = (open.body as { id: string }).id;
  expect(
    (await control(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' })).status,
  ).toBe(200);
  const approved = {
    request: 'APROVADO',
    payment: 'approved',
    ledger: ['A'],
    notices: ['Authorized'],
    callbacks: ['Authorized', 'RefundApproved'],
  };
  expect(await state(p.paymentId, id)).toEqual(approved);

  const restore = await failWrites(sb.sandbox.ctx.db, 'concil_installments', 'update');
  const failed = await control(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' });
  await restore();
  expect(failed.status).toBeGreaterThanOrEqual(500);
  expect(await state(p.paymentId, id)).toEqual(approved);

  // Restarted on the same file: still undecided, and it can be decided now.
  await sb.close();
  sb = await startSandbox({ dbUrl, deps: { clock: clock() } });
  expect(await state(p.paymentId, id)).toEqual(approved);
  expect(
    (await control(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' })).status,
  ).toBe(200);
  expect(await state(p.paymentId, id)).toEqual({
    request: 'CANCELADO',
    payment: 'canceled',
    ledger: ['C'],
    notices: ['Authorized', 'Canceled'],
    callbacks: ['Authorized', 'RefundApproved', 'Canceled'],
  });
});

it('a block whose notification cannot be queued is not applied', async () => {
  const p = await pay();
  const before = await state(p.paymentId);
  expect(before.ledger).toEqual(['A']);

  const restore = await failWrites(sb.sandbox.ctx.db, 'webhook_notifications', 'insert');
  const failed = await control(`/transactions/${p.nsu}/block`);
  await restore();
  expect(failed.status).toBeGreaterThanOrEqual(500);
  expect(await state(p.paymentId)).toEqual(before);

  expect((await control(`/transactions/${p.nsu}/block`)).status).toBe(200);
  expect(await state(p.paymentId)).toMatchObject({
    ledger: ['B'],
    notices: ['Authorized', 'Blocked'],
  });
  expect((await control(`/transactions/${p.nsu}/unblock`)).status).toBe(200);
  expect(await state(p.paymentId)).toMatchObject({
    ledger: ['A'],
    notices: ['Authorized', 'Blocked', 'Authorized'],
  });
});
