import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import type { WebhookNotificationItem } from '../../../server/bff/webhooks/notifications';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import { MERCHANT_SECRET, startBff, type TestBff, apiError } from '../../support/bff';

let t: TestBff;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;

beforeAll(async () => {
  t = await startBff();
});
afterAll(async () => {
  await t.close();
});

const notification = (over: Record<string, unknown> = {}) => ({
  movementId: 5_001,
  nsu: '900000000001',
  codAuth: 'AUT001',
  installmentNumber: 1,
  moment: '2026-03-04T10:00:00.000-03:00',
  type: 'TransactionStatus',
  oldValue: '',
  newValue: 'Authorized',
  ...over,
});

async function deliver(body: unknown): Promise<void> {
  const res = await t.request('POST', '/webhooks/gateway', {
    body,
    headers: { authorization: basic },
  });
  expect(res.status).toBe(200);
}

async function list(query = ''): Promise<WebhookNotificationItem[]> {
  await webhookReceiverOf(t.bff.ctx).idle();
  const res = await t.request('GET', `/v1/webhook-notifications${query}`, { headers: merchant });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (res.body as { data: WebhookNotificationItem[] }).data;
}

describe('GET /v1/webhook-notifications', () => {
  it('lists a delivered notification with its processing state; unconfirmed has no session', async () => {
    await deliver(notification());
    const items = await list();
    expect(items).toEqual([
      {
        movementId: 5_001,
        nsu: '900000000001',
        codAuth: 'AUT001',
        installmentNumber: 1,
        moment: '2026-03-04T10:00:00.000-03:00',
        type: 'TransactionStatus',
        oldValue: '',
        newValue: 'Authorized',
        receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown,
        // The gateway's ledger does not know this sale: waiting for confirmation.
        status: 'received',
        processedAt: null,
        duplicates: 0,
        sessionId: null,
      },
    ]);
    // A redelivery is counted on the same row, not listed twice.
    await deliver(notification());
    const again = await list();
    expect(again).toHaveLength(1);
    expect(again[0]!.duplicates).toBe(1);
  });

  it('a notification about a payment of ours names its checkout session', async () => {
    const s = await t.createSession({ amount: 4_990 });
    const paid = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect((paid.body as PayResult).status).toBe('succeeded');
    const detail = await t.request('GET', `/v1/checkout-sessions/${s.id}`, { headers: merchant });
    const payment = (detail.body as { payment: { nsu: string; authorizationCode: string } })
      .payment;
    await deliver(
      notification({
        movementId: 5_002,
        nsu: payment.nsu,
        codAuth: payment.authorizationCode ?? '',
        moment: '2026-03-04T10:01:00.000-03:00',
      }),
    );
    const items = await list();
    expect(items[0]).toMatchObject({
      movementId: 5_002,
      nsu: payment.nsu,
      status: 'processed',
      sessionId: s.id,
    });
  });

  it('newest first; limit bounds the page and after returns only newer movements', async () => {
    for (const id of [5_010, 5_012, 5_011]) await deliver(notification({ movementId: id }));
    expect((await list('?limit=3')).map((n) => n.movementId)).toEqual([5_012, 5_011, 5_010]);
    expect((await list('?after=5010')).map((n) => n.movementId)).toEqual([5_012, 5_011]);
    expect((await list('?after=5010&limit=1')).map((n) => n.movementId)).toEqual([5_012]);
    expect(await list('?after=5012')).toEqual([]);
    // The cursors of every /v1 list, keyed by movementId here.
    expect((await list('?after=5009&starting_after=5012')).map((n) => n.movementId)).toEqual([
      5_011, 5_010,
    ]);
    expect((await list('?ending_before=5010&limit=1')).map((n) => n.movementId)).toEqual([5_011]);
    expect((await list('?ending_before=5010')).map((n) => n.movementId)).toEqual([5_012, 5_011]);
    expect((await list('?limit=200')).length).toBeGreaterThanOrEqual(5);
  });

  it('two bodies under one movementId are listed on one page, never split by its cursor', async () => {
    await deliver(notification({ movementId: 7_701, codAuth: 'OLD001' }));
    await deliver(notification({ movementId: 7_702, codAuth: 'AAA001' }));
    // Another body for the same movement: kept beside the first (a conflict), not merged.
    await deliver(notification({ movementId: 7_702, codAuth: 'BBB001' }));
    await deliver(notification({ movementId: 7_703, codAuth: 'NEW001' }));
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 6; page++) {
      await webhookReceiverOf(t.bff.ctx).idle();
      const res = await t.request('GET', `/v1/webhook-notifications?limit=1&after=7700${cursor}`, {
        headers: merchant,
      });
      const body = res.body as { data: WebhookNotificationItem[]; hasMore: boolean };
      seen.push(...body.data.map((n) => `${n.movementId} ${n.codAuth}`));
      if (!body.hasMore) break;
      cursor = `&starting_after=${body.data.at(-1)!.movementId}`;
    }
    expect(seen.sort()).toEqual(['7701 OLD001', '7702 AAA001', '7702 BBB001', '7703 NEW001']);
  });

  it('wants the merchant secret (webhook Basic credentials and wrong secrets are refused)', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer sk_wrong' },
      { authorization: basic },
      { authorization: `Bearer ${MERCHANT_SECRET}x` },
    ]) {
      const res = await t.request('GET', '/v1/webhook-notifications', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.text).not.toContain('900000000001');
    }
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=-1', 'limit'],
    ['?after=-5', 'after'],
    ['?after=1.5', 'after'],
    ['?since=1', 'body'],
  ])('a bad query %s is a 400 naming %s', async (query, tag) => {
    const res = await t.request('GET', `/v1/webhook-notifications${query}`, {
      headers: merchant,
    });
    expect(res.status).toBe(400);
    const error = apiError(res);
    expect(error.type).toBe('invalid_request_error');
    if (tag !== 'body') expect(error.param).toBe(tag);
    expect(error.message).toMatch(new RegExp(`^${tag}: `));
    expect(error.message).toContain(query.slice(1, query.indexOf('=')));
  });
});
