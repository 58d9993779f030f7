import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../../server/sandbox/events';
import { findPayment } from '../../../server/sandbox/payments/store';
import {
  decideCancellationRequest,
  openCancellationRequest,
} from '../../../server/sandbox/refunds/service';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { creditBody, debitBody, expectFieldError, plainCardInfo } from './payment-helpers';

let sb: TestSandbox;
const canceled: Extract<SandboxEvent, { type: 'payment.canceled' }>[] = [];
beforeAll(async () => {
  sb = await startSandbox();
  sb.sandbox.ctx.events.on('payment.canceled', (e) => {
    canceled.push(e);
  });
});
afterAll(() => sb.close());

const control = (method: string, path: string, body?: unknown) =>
  sb.call(method, `/__sandbox${path}`, { token: null, ...(body !== undefined ? { body } : {}) });

async function pay(amount = 10_000, installments = 1): Promise<{ paymentId: string; nsu: string }> {
  const res = await sb.call('POST', '/v1/payments', {
    body: creditBody(plainCardInfo(sb, '4000000000002701'), {
      amount,
      installments,
      productType: installments > 1 ? 'lojista' : 'avista',
    }),
  });
  expect(res.status).toBe(200);
  return (res.body as { paymentAuthorization: { paymentId: string; nsu: string } })
    .paymentAuthorization;
}

interface ListBody {
  items: {
    id: string;
    status: string;
    amount: number;
    nsu: string;
    installments: number;
    operationDate: string;
  }[];
  totalCount: number;
  skip: number;
  take: number;
}

describe('cancellation requests and GET /v1/refund/list', () => {
  it('is 200 with empty items and totalCount 0 when nothing matches', async () => {
    const res = await sb.call('GET', '/v1/refund/list');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], totalCount: 0, skip: 0, take: 10 });
  });

  it('opens PENDENTE requests and walks PENDENTE → APROVADO → CANCELADO, canceling the payment', async () => {
    const p = await pay(12_345, 3);
    const open = await control('POST', '/cancellation-requests', {
      paymentId: p.paymentId,
      description: 'cliente desistiu',
    });
    expect(open.status, JSON.stringify(open.body)).toBe(201);
    const req = open.body as {
      id: string;
      status: string;
      amount: number;
      installments: number;
      nsu: string;
    };
    expect(req).toMatchObject({ status: 'PENDENTE', amount: 123.45, installments: 3, nsu: p.nsu });

    const dup = await control('POST', '/cancellation-requests', {
      paymentId: p.paymentId,
      description: 'again',
    });
    expectFieldError(dup, 409, 'paymentId');
    expectFieldError(
      await control('POST', `/cancellation-requests/${req.id}/decide`, { status: 'CANCELADO' }),
      409,
      'status',
    );

    expect(
      (await control('POST', `/cancellation-requests/${req.id}/decide`, { status: 'APROVADO' }))
        .status,
    ).toBe(200);
    expect(canceled).toHaveLength(0);
    const done = await control('POST', `/cancellation-requests/${req.id}/decide`, {
      status: 'CANCELADO',
    });
    expect(done.status).toBe(200);
    expect(canceled).toHaveLength(1);
    expect(canceled[0]).toMatchObject({
      cancellationRequestId: req.id,
      payment: { paymentId: p.paymentId },
    });
    expect((await findPayment(sb.sandbox.ctx, p.paymentId))?.status).toBe('canceled');

    expectFieldError(
      await control('POST', `/cancellation-requests/${req.id}/decide`, { status: 'REJEITADO' }),
      409,
      'status',
    );
    expectFieldError(
      await control('POST', '/cancellation-requests', { paymentId: p.paymentId, description: 'x' }),
      409,
      'paymentId',
    );
  });

  it('PENDENTE → REJEITADO; unknown ids are 404; bodies are validated', async () => {
    const p = await pay();
    const open = await control('POST', '/cancellation-requests', {
      paymentId: p.paymentId,
      amount: 500,
      description: 'parcial',
    });
    const id = (open.body as { id: string }).id;
    // A GUID is the same in upper case, as on the list.
    const rejected = await control('POST', `/cancellation-requests/${id.toUpperCase()}/decide`, {
      status: 'REJEITADO',
    });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ id, status: 'REJEITADO' });
    expectFieldError(
      await control('POST', `/cancellation-requests/${id}/decide`, { status: 'APROVADO' }),
      409,
      'status',
    );
    expectFieldError(
      await control('POST', '/cancellation-requests/nope/decide', { status: 'APROVADO' }),
      404,
      'id',
    );
    expectFieldError(
      await control('POST', `/cancellation-requests/${id}/decide`, { status: 'FEITO' }),
      400,
      'status',
    );
    expectFieldError(
      await control('POST', '/cancellation-requests', { paymentId: 'nope', description: 'x' }),
      404,
      'paymentId',
    );
    expectFieldError(
      await control('POST', '/cancellation-requests', { paymentId: p.paymentId }),
      400,
      'description',
    );
    expectFieldError(
      await control('POST', '/cancellation-requests', {
        paymentId: p.paymentId,
        amount: 10_001,
        description: 'x',
      }),
      400,
      'amount',
    );
  });

  it('lists newest first with filters, paging and id overriding the rest', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await pay(1000 + i);
      const r = await control('POST', '/cancellation-requests', {
        paymentId: p.paymentId,
        description: `n${i}`,
      });
      ids.push((r.body as { id: string }).id);
    }
    const all = (await sb.call('GET', '/v1/refund/list?take=100')).body as ListBody;
    expect(all.totalCount).toBe(5);
    // Same creation instant is possible: insertion order breaks ties, newest first.
    expect(all.items.slice(0, 3).map((i) => i.id)).toEqual([...ids].reverse());

    const pending = (await sb.call('GET', '/v1/refund/list?status=PENDENTE&skip=1&take=1'))
      .body as ListBody;
    expect(pending).toMatchObject({ totalCount: 3, skip: 1, take: 1 });
    expect(pending.items.map((i) => i.id)).toEqual([ids[1]]);

    const byId = (await sb.call('GET', `/v1/refund/list?id=${ids[0]}&status=CANCELADO`))
      .body as ListBody;
    expect(byId.totalCount).toBe(1);
    expect(byId.items[0]?.id).toBe(ids[0]);
    expect(byId.items[0]?.operationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // A GUID is the same in upper case (the schema accepts both).
    const upper = (await sb.call('GET', `/v1/refund/list?id=${ids[0]!.toUpperCase()}`))
      .body as ListBody;
    expect(upper.items.map((i) => i.id)).toEqual([ids[0]]);

    const none = (await sb.call('GET', '/v1/refund/list?status=CANCELADO&skip=50'))
      .body as ListBody;
    expect(none).toEqual({ items: [], totalCount: 1, skip: 50, take: 10 });
  });

  it.each([
    ['take=101', 'take'],
    ['take=0', 'take'],
    ['take=abc', 'take'],
    ['skip=-1', 'skip'],
    ['status=ABERTO', 'status'],
    ['id=not-a-guid', 'id'],
  ])('%s → 400 naming %s', async (query, tag) => {
    const items = expectFieldError(await sb.call('GET', `/v1/refund/list?${query}`), 400, tag);
    if (query === 'take=101') expect(items[0]!.description).toBe('take: must be at most 100');
  });

  it('scopes the list to the client of the token', async () => {
    const other = await startSandbox({
      deps: {
        clients: [
          { userName: 'sandbox', password: 'sandbox', accountNumber: '1001', merchantId: '1001' },
          { userName: 'other', password: 'pw', accountNumber: '2002', merchantId: '2002' },
        ],
      },
    });
    try {
      const res = await other.call('POST', '/v1/payments', {
        body: creditBody(plainCardInfo(other, '4000000000002701')),
      });
      const { paymentId } = (res.body as { paymentAuthorization: { paymentId: string } })
        .paymentAuthorization;
      await other.call('POST', '/__sandbox/cancellation-requests', {
        token: null,
        body: { paymentId, description: 'x' },
      });
      const tok = await fetch(`${other.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'other', password: 'pw' }),
      });
      const { accessToken } = (await tok.json()) as { accessToken: string };
      expect(
        ((await other.call('GET', '/v1/refund/list', { token: accessToken })).body as ListBody)
          .totalCount,
      ).toBe(0);
      expect(((await other.call('GET', '/v1/refund/list')).body as ListBody).totalCount).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('a partial cancellation gives its amount back and leaves the sale; the rest cancels it', async () => {
    const p = await pay(10_000, 2);
    const decide = async (amount: number | undefined) => {
      const open = await control('POST', '/cancellation-requests', {
        paymentId: p.paymentId,
        description: 'parcial',
        ...(amount !== undefined ? { amount } : {}),
      });
      expect(open.status, JSON.stringify(open.body)).toBe(201);
      const { id } = open.body as { id: string };
      for (const status of ['APROVADO', 'CANCELADO']) {
        expect(
          (await control('POST', `/cancellation-requests/${id}/decide`, { status })).status,
        ).toBe(200);
      }
      return id;
    };
    const installments = () =>
      sb.sandbox.ctx.db
        .selectFrom('concil_installments')
        .select('installment_status')
        .where('payment_id', '=', p.paymentId)
        .execute();
    const canceledBefore = canceled.length;

    await decide(3_000);
    // The sale stands: still approved, its installments A, nothing told as Canceled.
    expect((await findPayment(sb.sandbox.ctx, p.paymentId))?.status).toBe('approved');
    expect((await installments()).map((r) => r.installment_status)).toEqual(['A', 'A']);
    expect(canceled).toHaveLength(canceledBefore);
    // What is left to cancel is what a next request may ask.
    expectFieldError(
      await control('POST', '/cancellation-requests', {
        paymentId: p.paymentId,
        description: 'demais',
        amount: 7_001,
      }),
      400,
      'amount',
    );

    // The rest (by default, what is left): the sale is canceled.
    const last = await decide(undefined);
    expect((await findPayment(sb.sandbox.ctx, p.paymentId))?.status).toBe('canceled');
    expect((await installments()).map((r) => r.installment_status)).toEqual(['C', 'C']);
    expect(canceled.slice(canceledBefore)).toMatchObject([{ cancellationRequestId: last }]);
    const listed = (await sb.call('GET', `/v1/refund/list?id=${last}`)).body as {
      items: { requestedAmount: number }[];
    };
    expect(listed.items[0]?.requestedAmount).toBe(70);
  });
});

describe('a payment is never given back more than it was', () => {
  it('two requests opened at once: one opens, the other is refused', async () => {
    const p = await pay(10_000);
    const ctx = sb.sandbox.ctx;
    // Started in the same turn, as two control-plane calls can be.
    const both = await Promise.all([
      openCancellationRequest(ctx, { paymentId: p.paymentId, amount: 6_000, description: 'a' }),
      openCancellationRequest(ctx, { paymentId: p.paymentId, amount: 6_000, description: 'b' }),
    ]);
    expect(both.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(both.find((r) => !r.ok)).toMatchObject({ status: 409, tag: 'paymentId' });
  });

  it('a request asking more than is left is not decided CANCELADO', async () => {
    const p = await pay(10_000);
    const ctx = sb.sandbox.ctx;
    const first = await openCancellationRequest(ctx, {
      paymentId: p.paymentId,
      amount: 6_000,
      description: 'a',
    });
    if (!first.ok) throw new Error(first.description);
    // A second request for 60.00 written beside it (as a store from before the open check was
    // one transaction may hold): whichever is decided second would pass the payment.
    const row = await ctx.db
      .selectFrom('cancellation_requests')
      .selectAll()
      .where('id', '=', first.request.id)
      .executeTakeFirstOrThrow();
    const { seq: _seq, ...copy } = row;
    void _seq;
    const secondId = '00000000-0000-4000-8000-000000000001';
    await ctx.db
      .insertInto('cancellation_requests')
      .values({ ...copy, id: secondId, description: 'b' })
      .execute();
    for (const id of [first.request.id, secondId]) {
      expect((await decideCancellationRequest(ctx, id, 'APROVADO')).ok).toBe(true);
    }
    expect((await decideCancellationRequest(ctx, first.request.id, 'CANCELADO')).ok).toBe(true);
    expect(await decideCancellationRequest(ctx, secondId, 'CANCELADO')).toMatchObject({
      ok: false,
      status: 409,
      tag: 'amount',
    });
    expect((await findPayment(ctx, p.paymentId))?.status).toBe('approved');
    const given = await ctx.db
      .selectFrom('cancellation_requests')
      .select(['id', 'status'])
      .where('payment_id', '=', p.paymentId)
      .orderBy('seq')
      .execute();
    expect(given).toEqual([
      { id: first.request.id, status: 'CANCELADO' },
      { id: secondId, status: 'APROVADO' },
    ]);
  });
});

describe('outcome overrides', () => {
  it('force the next N payments, then the card decides again; reset clears them', async () => {
    expect((await control('POST', '/outcomes', { count: 2, returnCode: '51' })).status).toBe(201);
    const code = async () =>
      (
        (
          await sb.call('POST', '/v1/payments', {
            body: creditBody(plainCardInfo(sb, '4000000000002701')),
          })
        ).body as {
          paymentAuthorization: { returnCode: string };
        }
      ).paymentAuthorization.returnCode;
    expect(await code()).toBe('51');
    expect(await code()).toBe('51');
    expect(await code()).toBe('00');

    await control('POST', '/outcomes', { count: 1, threeDs: 'challenge' });
    const ch = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '4000000000002701')),
    });
    expect((ch.body as { threeDs: { status: string } }).threeDs.status).toBe(
      'PENDING_AUTHENTICATION',
    );

    await control('POST', '/outcomes', { count: 1, internalError: true });
    expect((await control('GET', '/outcomes')).body).toMatchObject({ items: [{ remaining: 1 }] });
    expect((await control('DELETE', '/outcomes')).body).toEqual({ items: [] });
    expect((await control('GET', '/outcomes')).body).toEqual({ items: [] });
    expectFieldError(await control('POST', '/outcomes', { count: 1 }), 400, 'body');
    expectFieldError(
      await control('POST', '/outcomes', { count: 1, returnCode: '99' }),
      400,
      'returnCode',
    );
  });
});

describe('faults', () => {
  it('answer a status with the internal error array for the next matching calls only', async () => {
    const f = await control('POST', '/faults', {
      method: 'post',
      path: '/v1/payments',
      count: 1,
      status: 503,
    });
    expect(f.status).toBe(201);
    expect((await control('GET', '/faults')).body).toMatchObject({
      items: [{ method: 'POST', remaining: 1 }],
    });
    expect((await sb.call('GET', '/v1/refund/list')).status).toBe(200);
    const hit = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000002701')),
    });
    expect(hit.status).toBe(503);
    expect(hit.body).toEqual([
      { tag: '', description: 'The command could not be executed because of an unknown error' },
    ]);
    const next = await sb.call('POST', '/v1/payments', {
      body: creditBody(plainCardInfo(sb, '4000000000002701')),
    });
    expect(next.status).toBe(200);
  });

  it('drop the connection without an answer', async () => {
    await control('POST', '/faults', { path: '/v1/refund/*', count: 1, drop: true });
    await expect(sb.call('GET', '/v1/refund/list')).rejects.toThrow();
    expect((await sb.call('GET', '/v1/refund/list')).status).toBe(200);
  });

  it('with after, process the call and then answer the status (a charge said to have failed)', async () => {
    await control('POST', '/faults', { path: '/v1/payments', count: 1, status: 409, after: true });
    const body = {
      ...creditBody(plainCardInfo(sb, '4000000000002701')),
      referenceTransaction: 'charged-but-409',
    };
    const hit = await sb.call('POST', '/v1/payments', { body });
    expect(hit.status).toBe(409);
    const rows = await sb.sandbox.ctx.db
      .selectFrom('payments')
      .select('reference_transaction')
      .where('reference_transaction', '=', 'charged-but-409')
      .execute();
    expect(rows).toHaveLength(1);
    expectFieldError(await control('POST', '/faults', { count: 1, after: true }), 400, 'body');
  });

  it('reach the token operations too (credentials refused for a while)', async () => {
    await control('POST', '/faults', { path: '/api/auth/token', count: 1, status: 401 });
    await expect(sb.token()).rejects.toThrow('token: 401');
    expect(await sb.token()).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('delay with latencyMs and are cleared by DELETE', async () => {
    await control('POST', '/faults', { path: '/v1/refund/list', count: 5, latencyMs: 1 });
    expect((await sb.call('GET', '/v1/refund/list')).status).toBe(200);
    expect((await control('DELETE', '/faults')).body).toEqual({ items: [] });
    expect((await control('GET', '/faults')).body).toEqual({ items: [] });
    expectFieldError(await control('POST', '/faults', { count: 1 }), 400, 'body');
    expectFieldError(await control('POST', '/faults', { count: 1, status: 200 }), 400, 'status');
  });
});

describe('reset', () => {
  it('clears queued outcomes and faults', async () => {
    await control('POST', '/outcomes', { count: 3, returnCode: '05' });
    await control('POST', '/faults', { count: 3, status: 500 });
    expect((await control('POST', '/reset')).status).toBe(200);
    expect((await control('GET', '/outcomes')).body).toEqual({ items: [] });
    expect((await control('GET', '/faults')).body).toEqual({ items: [] });
  });
});
