import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { creditBody, debitBody, plainCardInfo } from '../payment-helpers';
import { basic, startReceiver, waitFor } from '../webhooks/receiver';

// 2026-04-01 10:00 in São Paulo.
const clock = new OffsetClock(0, { now: () => new Date('2026-04-01T13:00:00Z') });
let sb: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  sb = await startSandbox({ deps: { clock } });
  receiver = await startReceiver();
  const set = await api('POST', '/api/webhooks/subscriptions?accountNumber=1001', {
    url: `${receiver.url}/hook`,
    basicAuth: basic('gw', 'pw'),
  });
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await sb.close();
  await receiver.close();
});

type Row = Record<string, unknown>;
/** A token per API family, renewed when the sandbox clock has moved past most of its hour. */
const tokens = new Map<string, { token: string; at: number }>();
async function tokenFor(family: 'gateway' | 'integration') {
  const now = sb.clock.now().getTime();
  const cached = tokens.get(family);
  if (cached && now - cached.at < 50 * 60_000) return cached.token;
  const token = await sb.token(family);
  tokens.set(family, { token, at: now });
  return token;
}
const api = async (method: string, path: string, body?: unknown) =>
  sb.call(method, path, {
    token: await tokenFor(path.startsWith('/api/') ? 'integration' : 'gateway'),
    ...(body === undefined ? {} : { body }),
  });
const search = async (op: string, params: Record<string, string | number>) =>
  api(
    'POST',
    `/api/transaction/concil/${op}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`,
  );
const control = (path: string, body?: unknown) =>
  sb.call('POST', `/__sandbox${path}`, { token: null, ...(body === undefined ? {} : { body }) });

async function pay(amount: number, installments = 1, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/v1/payments', {
    ...creditBody(plainCardInfo(sb, '4000000000002701'), {
      amount,
      installments,
      productType: installments > 1 ? 'lojista' : 'avista',
    }),
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (
    res.body as {
      paymentAuthorization: { paymentId: string; nsu: string; authorizationCode: string };
    }
  ).paymentAuthorization;
}

async function cancel(paymentId: string) {
  const open = await control('/cancellation-requests', { paymentId, description: 'desistência' });
  expect(open.status, JSON.stringify(open.body)).toBe(201);
  const id = (open.body as { id: string }).id;
  expect(
    (await control(`/cancellation-requests/${id}/decide`, { status: 'APROVADO' })).status,
  ).toBe(200);
  expect(
    (await control(`/cancellation-requests/${id}/decide`, { status: 'CANCELADO' })).status,
  ).toBe(200);
}

const sum = (rows: Row[], field: string) =>
  Math.round(rows.reduce((a, r) => a + Number(r[field]) * 10_000, 0));

describe('the ledger follows real payments', () => {
  it('an installment sale: one row per installment, fees, receipts, splits, notifications', async () => {
    receiver.received.length = 0;
    const p = await pay(12_346, 3, {
      configSplit: [{ documentNumberBeneficiary: '12345678000195', percent: 10, type: 'bruto' }],
    });
    const res = await search('search-by-code', { accountNumber: 1001, nsu: p.nsu });
    expect(res.status).toBe(200);
    const rows = res.body as Row[];
    expect(rows.map((r) => r.installmentValue)).toEqual([41.16, 41.15, 41.15]);
    expect(rows[0]).toMatchObject({
      transactionDate: '2026-04-01T10:00:00.000-03:00',
      terminal: expect.any(String),
      cardNumber: '400000*****2701',
      cardType: 'credit',
      cardName: 'visa',
      codAuth: p.authorizationCode,
      nsu: p.nsu,
      installmentNumber: 1,
      installmentsCount: 3,
      transactionTotalValue: 123.46,
      installmentStatus: 'A',
      discountMdrTax: 3.29,
      discountTrnRateInstalmentValue: 0.0334,
      discountTrnRateTransactionValue: 0.1,
      discountAntifraudRateInstalmentValue: 0.05,
      discountAntifraudRateTransactionValue: 0.15,
      receivedDateForeast: '2026-05-01T00:00:00.000-03:00',
      receivedDateEffective: null,
      receivedType: 'R',
      receivedStatus: 'A',
      transactionReference: 'order-1',
      transactionPaymentIdWeb: p.paymentId,
      splits: [
        {
          beneficiario: '12345678000195',
          tipoSplit: 'bruto',
          pctSplit: 10,
          valorBaseSplit: 41.16,
          valorSplit: 4.116,
        },
      ],
    });
    for (const r of rows) {
      expect(
        sum([r], 'receivedValue') +
          sum([r], 'discountMdrValue') +
          sum([r], 'discountTrnRateInstalmentValue') +
          sum([r], 'discountAntifraudRateInstalmentValue'),
      ).toBe(sum([r], 'installmentValue'));
    }
    // Authorized, once per installment.
    await waitFor(() => receiver.received.filter((x) => x.body.nsu === p.nsu).length === 3);
    expect(
      receiver.received.map((x) => [x.body.installmentNumber, x.body.oldValue, x.body.newValue]),
    ).toEqual([
      [1, '', 'Authorized'],
      [2, '', 'Authorized'],
      [3, '', 'Authorized'],
    ]);

    // The auth-code search narrows by date, values and installment.
    const byAuth = await search('search-by-auth-code', {
      accountNumber: 1001,
      codAuth: p.authorizationCode,
      operationDate: '2026-04-01',
      value: '123.46',
      installmentValue: '41.15',
      installmentNumber: 3,
    });
    expect((byAuth.body as Row[]).map((r) => r.installmentNumber)).toEqual([3]);

    // Thirty days on, the first receipt is paid (and notified); the others stay open.
    await control('/clock/advance', { days: 30 });
    const after = (await search('search-by-code', { accountNumber: 1001, nsu: p.nsu }))
      .body as Row[];
    expect(after.map((r) => r.receivedStatus)).toEqual(['P', 'A', 'A']);
    expect(after[0]!.receivedDateEffective).toBe('2026-05-01T00:00:00.000-03:00');
    await waitFor(() => receiver.received.some((x) => x.body.newValue === 'Paid'));
    expect(
      receiver.received
        .filter((x) => x.body.newValue === 'Paid')
        .map((x) => [x.body.installmentNumber, x.body.oldValue]),
    ).toEqual([[1, 'Authorized']]);
    const byPayment = await search('search-by-payment-date', {
      accountNumber: 1001,
      startDate: '2026-05-01',
      endDate: '2026-05-01',
    });
    expect(
      (byPayment.body as Row[]).filter((r) => r.nsu === p.nsu).map((r) => r.installmentNumber),
    ).toEqual([1]);

    // Blocked, then canceled: rows B then C, a notification per installment each time.
    expect((await control(`/transactions/${p.nsu}/block`)).status).toBe(200);
    expect((await control(`/transactions/${p.nsu}/block`)).status).toBe(409);
    const summary = await search('search-by-operation-date', {
      accountNumber: 1001,
      startDate: '2026-04-01',
      endDate: '2026-04-01',
    });
    expect((summary.body as Row[]).find((r) => r.nsu === p.nsu)).toMatchObject({
      transactionStatus: 'B',
      installments: '3',
      amount: '123.4600',
    });
    await cancel(p.paymentId);
    const canceled = (await search('search-by-code', { accountNumber: 1001, nsu: p.nsu }))
      .body as Row[];
    expect(canceled.map((r) => r.installmentStatus)).toEqual(['C', 'C', 'C']);
    await waitFor(
      () => receiver.received.filter((x) => x.body.newValue === 'Canceled').length === 3,
    );
    expect(
      receiver.received.filter((x) => x.body.newValue === 'Blocked').map((x) => x.body.oldValue),
    ).toEqual(['Paid', 'Authorized', 'Authorized']);
    expect(
      receiver.received.filter((x) => x.body.newValue === 'Canceled').map((x) => x.body.oldValue),
    ).toEqual(['Blocked', 'Blocked', 'Blocked']);
    const ids = receiver.received.map((x) => x.body.movementId as number);
    expect(new Set(ids).size).toBe(ids.length);
    // Canceled installments are never paid.
    await control('/clock/advance', { days: 70 });
    const final = (await search('search-by-code', { accountNumber: 1001, nsu: p.nsu }))
      .body as Row[];
    expect(final.map((r) => r.receivedStatus)).toEqual(['P', 'A', 'A']);
  });

  it('a debit sale is received the next day at 1.19 % and no anti-fraud fee', async () => {
    const res = await api(
      'POST',
      '/v1/payments/3ds',
      debitBody(plainCardInfo(sb, '4000000000002701')),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { nsu } = (res.body as { paymentAuthorization: { nsu: string } }).paymentAuthorization;
    const [row] = (await search('search-by-code', { accountNumber: 1001, nsu })).body as Row[];
    const today = new Date(sb.clock.now().getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
    expect(row).toMatchObject({
      cardType: 'debit',
      discountMdrTax: 1.19,
      discountMdrValue: 0.2975,
      discountAntifraudRateTransactionValue: 0,
      installmentValue: 25,
      receivedValue: 24.6025,
    });
    expect(String(row!.receivedDateForeast).slice(0, 10) > today).toBe(true);
  });
});

describe('sums reconcile', () => {
  it('a few hundred random payments: installments add up to the summaries and to what was paid', async () => {
    // A fresh period: move to a new day in São Paulo.
    await control('/clock/advance', { days: 1 });
    const day = new Date(sb.clock.now().getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const made: { paymentId: string; amount: number; installments: number }[] = [];
    for (let i = 0; i < 240; i++) {
      const amount = 100 + rand(500_000);
      const installments = 1 + rand(12);
      const p = await pay(amount, installments);
      made.push({ paymentId: p.paymentId, amount, installments });
    }
    for (const p of made.slice(0, 20)) await cancel(p.paymentId);

    const params = { accountNumber: 1001, startDate: day, endDate: day };
    const installments = (await search('search-by-operation-date-installments', params))
      .body as Row[];
    const summaries = (await search('search-by-operation-date', params)).body as Row[];
    const paid = made.reduce((a, p) => a + p.amount, 0) * 100; // u4
    expect(summaries).toHaveLength(made.length);
    expect(installments).toHaveLength(made.reduce((a, p) => a + p.installments, 0));
    expect(sum(installments, 'installmentValue')).toBe(paid);
    expect(sum(summaries, 'amount')).toBe(paid);
    expect(summaries.filter((s) => s.transactionStatus === 'C')).toHaveLength(20);
    // Per transaction: installments add up to the total; fees add up per installment.
    const byNsu = new Map<string, Row[]>();
    for (const r of installments)
      byNsu.set(r.nsu as string, [...(byNsu.get(r.nsu as string) ?? []), r]);
    for (const s of summaries) {
      const rows = byNsu.get(s.nsu as string)!;
      expect(rows).toHaveLength(Number(s.installments));
      expect(sum(rows, 'installmentValue')).toBe(sum([s], 'amount'));
      expect(sum(rows, 'discountTrnRateInstalmentValue')).toBe(1_000);
      expect(sum(rows, 'discountAntifraudRateInstalmentValue')).toBe(1_500);
    }
    for (const r of installments) {
      expect(
        sum([r], 'receivedValue') +
          sum([r], 'discountMdrValue') +
          sum([r], 'discountTrnRateInstalmentValue') +
          sum([r], 'discountAntifraudRateInstalmentValue'),
      ).toBe(sum([r], 'installmentValue'));
    }
    // Every installment is due on some later day: the payment-date search over the year finds them all.
    const receipts = (
      await search('search-by-payment-date', {
        accountNumber: 1001,
        startDate: day,
        endDate: `${Number(day.slice(0, 4)) + 1}${day.slice(4)}`,
      })
    ).body as Row[];
    const ofPeriod = receipts.filter((r) => byNsu.has(r.nsu as string));
    expect(sum(ofPeriod, 'installmentValue')).toBe(paid);
  }, 120_000);
});

describe('query validation and account scope', () => {
  const range = { accountNumber: '1001', startDate: '2026-04-01', endDate: '2026-04-30' };
  it.each([
    [
      'search-by-operation-date',
      { ...range, startDate: '2026-04-30', endDate: '2026-04-01' },
      'endDate',
    ],
    ['search-by-operation-date-installments', { ...range, endDate: '2026-4-30' }, 'endDate'],
    ['search-by-payment-date', { ...range, startDate: '2026-02-30' }, 'startDate'],
    ['search-by-payment-date', { ...range, endDate: '2028-01-01' }, 'endDate'],
    [
      'search-by-operation-date',
      { startDate: '2026-04-01', endDate: '2026-04-02' },
      'accountNumber',
    ],
    ['search-by-code', { accountNumber: '1001' }, 'nsu'],
    ['search-by-code', { accountNumber: '1001', nsu: 'x'.repeat(101) }, 'nsu'],
    ['search-by-auth-code', { accountNumber: '1001' }, 'codAuth'],
    ['search-by-auth-code', { accountNumber: '1001', codAuth: 'x'.repeat(31) }, 'codAuth'],
    ['search-by-auth-code', { accountNumber: '1001', codAuth: 'A', value: '1234567.1' }, 'value'],
    [
      'search-by-auth-code',
      { accountNumber: '1001', codAuth: 'A', installmentValue: '1.12345' },
      'installmentValue',
    ],
    [
      'search-by-auth-code',
      { accountNumber: '1001', codAuth: 'A', installmentNumber: '0x1' },
      'installmentNumber',
    ],
    // Installments are counted from 1: there is no installment 0 to look for.
    [
      'search-by-auth-code',
      { accountNumber: '1001', codAuth: 'A', installmentNumber: '0' },
      'installmentNumber',
    ],
    // A datetime where a date goes: one error item, not one per rule it breaks.
    ['search-by-operation-date', { ...range, startDate: '2026-04-01T00:00:00' }, 'startDate'],
    [
      'search-by-auth-code',
      { accountNumber: '1001', codAuth: 'A', operationDate: '2026-13-01' },
      'operationDate',
    ],
    ['search-by-code', { accountNumber: '12345678901234567890', nsu: '1' }, 'accountNumber'],
  ])('%s %o → 400 naming the field', async (op, params, field) => {
    const res = await search(op, params);
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[]).map((i) => i.tag)).toEqual([field]);
  });

  it('another account’s number is 403 on all five', async () => {
    for (const [op, params] of [
      ['search-by-code', { accountNumber: '2002', nsu: '1' }],
      ['search-by-auth-code', { accountNumber: '2002', codAuth: 'A' }],
      ['search-by-operation-date', { ...range, accountNumber: '2002' }],
      ['search-by-operation-date-installments', { ...range, accountNumber: '2002' }],
      ['search-by-payment-date', { ...range, accountNumber: '2002' }],
    ] as const) {
      expect((await search(op, params)).status, op).toBe(403);
    }
  });

  it('an unknown transaction is an empty array; block of an unknown nsu is 404', async () => {
    expect((await search('search-by-code', { accountNumber: '1001', nsu: 'nope' })).body).toEqual(
      [],
    );
    expect((await control('/transactions/999999/block')).status).toBe(404);
  });

  it('the fee table is configuration, in force from the next payment', async () => {
    const mdrOf = async (nsu: string) =>
      ((await search('search-by-code', { accountNumber: 1001, nsu })).body as Row[])[0]!
        .discountMdrTax;
    expect(await mdrOf((await pay(100)).nsu)).toBe(2.79);
    const res = await sb.call('PUT', '/__sandbox/reconciliation/fees', {
      token: null,
      body: { creditAvistaMdrPct: 2.5 },
    });
    expect(res.body).toMatchObject({ creditAvistaMdrPct: 2.5, debitMdrPct: 1.19 });
    expect(await mdrOf((await pay(100)).nsu)).toBe(2.5);
    const bad = await sb.call('PUT', '/__sandbox/reconciliation/fees', {
      token: null,
      body: { debitMdrPct: 101 },
    });
    expect(bad.status).toBe(400);
    expect(await mdrOf((await pay(100)).nsu)).toBe(2.5);
    await sb.call('PUT', '/__sandbox/reconciliation/fees', {
      token: null,
      body: { creditAvistaMdrPct: 2.79 },
    });
    expect(await mdrOf((await pay(100)).nsu)).toBe(2.79);
  });
});
