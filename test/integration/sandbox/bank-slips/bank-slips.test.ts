import { isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../../server/lib/clock';
import { slipRow } from '../../../../server/sandbox/bank-slips/routes';
import { paySlip } from '../../../../server/sandbox/bank-slips/service';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';

// The sandbox clock starts at a fixed instant: 2026-03-10 12:00 São Paulo (15:00Z).
const start = new OffsetClock(0, { now: () => new Date('2026-03-10T15:00:00Z') });
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ deps: { clock: start } });
});
afterAll(() => sb.close());

type Row = Record<string, unknown>;

async function issue(body: Row) {
  const res = await sb.call('POST', '/__sandbox/bank-slips', {
    token: null,
    body: { accountNumber: '1001', value: 150.5, dueDate: '2026-03-20', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Row;
}

async function pay(id: unknown, body: Row = {}) {
  return sb.call('POST', `/__sandbox/bank-slips/${String(id)}/pay`, { token: null, body });
}

const q = (path: string, params: Record<string, string>) =>
  sb.call('GET', `/api/billissuer/${path}?${new URLSearchParams(params).toString()}`);

describe('issuing', () => {
  it('returns a slip with a valid barcode, digitable line and Pix code', async () => {
    const slip = await issue({ payerName: 'Maria Silva', referenceCode: 'ORDER-1' });
    expect(slip).toMatchObject({
      value: '150.50',
      issueDate: '2026-03-10',
      dueDate: '2026-03-20',
      payerName: 'Maria Silva',
      statusBill: 2,
      statusIntegration: 2,
      effectivePaymentDate: null,
      effectiveCreditDate: null,
      effectivePaymentValue: null,
    });
    expect(slip.barCode).toMatch(/^\d{44}$/);
    expect(isValidBoleto(slip.digitableLine as string)).toBe(true);
    expect(isValidPixPayload(slip.pixEmv as string)).toBe(true);
  });

  it('takes the payer as an object too', async () => {
    const slip = await issue({
      payer: { name: 'João Souza', document: '12345678000199', zipCode: '20040002', state: 'RJ' },
    });
    expect(slip).toMatchObject({
      payerName: 'João Souza',
      payerDocument: '12345678000199',
      payerZipCode: '20040002',
      payerCityState: 'RJ',
    });
    const bad = await sb.call('POST', '/__sandbox/bank-slips', {
      token: null,
      body: { accountNumber: '1001', value: 1, dueDate: '2026-03-20', payer: { zipCode: 'x' } },
    });
    expect((bad.body as { tag: string }[])[0]?.tag).toBe('payerZipCode');
  });

  it('a slip the bank did not register has no codes', async () => {
    const slip = await issue({ statusIntegration: 99 });
    expect(slip).toMatchObject({
      statusBill: 99,
      barCode: null,
      digitableLine: null,
      pixEmv: null,
    });
  });

  it.each([
    [{ value: 100_000_000 }, 'value'],
    [{ value: 10.123 }, 'value'],
    [{ value: -1 }, 'value'],
    [{ dueDate: '2026-02-30' }, 'dueDate'],
    [{ dueDate: '1999-01-01' }, 'dueDate'],
    [{ payerZipCode: '123' }, 'payerZipCode'],
    [{ payerName: 'x'.repeat(51) }, 'payerName'],
    [{ accountNumber: 'abc' }, 'accountNumber'],
    [{ accountNumber: '999' }, 'accountNumber'],
    [{ statusIntegration: 3 }, 'statusIntegration'],
    // Issued tomorrow (the sandbox's today is 2026-03-10): it would be listed before it exists.
    [{ issueDate: '2026-03-11' }, 'issueDate'],
  ])('refuses %o naming %s', async (body, field) => {
    const res = await sb.call('POST', '/__sandbox/bank-slips', {
      token: null,
      body: { accountNumber: '1001', value: 10, dueDate: '2026-03-20', ...body },
    });
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[])[0]?.tag).toBe(field);
  });
});

describe('paying, overdue and the four reads', () => {
  it('follows a slip from issued to overdue to paid, in every list', async () => {
    const early = await issue({ dueDate: '2026-03-12', value: 10 });
    const onTime = await issue({ dueDate: '2026-03-13', value: 20 });

    // Paid on 2026-03-13 at 23:30 São Paulo (02:30Z on the 14th): payment date is the 13th.
    await sb.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 3, hours: 11, minutes: 30 },
    });
    expect(
      ((await q('information', { accountNumber: '1001', id_bill: early.id as string })).body as Row)
        .status,
    ).toBe(2);
    const list = await q('list/by/due-date', {
      accountNumber: '1001',
      startDate: '2026-03-12',
      endDate: '2026-03-12',
    });
    expect((list.body as Row[]).map((r) => [r.id, r.statusBill])).toEqual([[early.id, 9]]);

    const paid = await pay(onTime.id);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      statusBill: 3,
      effectivePaymentDate: '2026-03-13',
      effectiveCreditDate: '2026-03-16', // Friday → Monday
      effectivePaymentValue: '20.00',
    });
    // An overdue slip can still be paid, with its late charges; never for less than its value.
    const short = await pay(early.id, { value: 9.99 });
    expect(short.status).toBe(400);
    expect((short.body as { tag: string }[])[0]?.tag).toBe('value');
    const late = await pay(early.id, { value: 10.3 });
    expect(late.body).toMatchObject({ statusBill: 3, effectivePaymentValue: '10.30' });
    expect((await pay(early.id)).status).toBe(409);

    const byPayment = await q('list/by/payment-date', {
      accountNumber: '1001',
      startDate: '2026-03-13',
      endDate: '2026-03-13',
    });
    expect((byPayment.body as Row[]).map((r) => r.id).sort()).toEqual([early.id, onTime.id].sort());
    const before = await q('list/by/payment-date', {
      accountNumber: '1001',
      startDate: '2026-03-01',
      endDate: '2026-03-12',
    });
    expect(before.body).toEqual([]);

    const byCredit = await q('list/by/credit-date', {
      accountNumber: '1001',
      startDate: '2026-03-16',
      endDate: '2026-03-16',
    });
    const rows = byCredit.body as Row[];
    expect(rows).toHaveLength(2);
    // The 0.30 paid beyond the value of the late one: its 2 % penalty, the rest interest; the
    // one paid on time carried none.
    const charges = (r: Row) => [
      r.OverduePaymentPenalty,
      r.OverduePenaltyReceived,
      r.OverdueInterestReceived,
    ];
    expect(charges(rows.find((r) => r.Id === early.id)!)).toEqual(['0.20', '0.20', '0.10']);
    expect(charges(rows.find((r) => r.Id === onTime.id)!)).toEqual(['0.40', '0.00', '0.00']);
    expect(rows[0]).toMatchObject({
      StatusBill: 3,
      DueDate: expect.any(String),
      OurNumber: expect.stringMatching(/^\d{11}$/),
    });
    expect(rows[0]!.EffectiveCreditDate).toBe('2026-03-16T00:00:00.000-03:00');
    const rejectedOnly = await q('list/by/credit-date', {
      accountNumber: '1001',
      startDate: '2026-03-16',
      endDate: '2026-03-16',
      statusIntegration: '9',
    });
    expect(rejectedOnly.body).toEqual([]);

    for (const id of ['id_bill', 'id']) {
      const details = await q('information', { accountNumber: '1001', [id]: onTime.id as string });
      expect(details.status).toBe(200);
      expect(details.body).toMatchObject({ id: onTime.id, status: 3, success: true, message: '' });
      // The id is a GUID: upper case finds the same slip.
      const upper = await q('information', {
        accountNumber: '1001',
        [id]: (onTime.id as string).toUpperCase(),
      });
      expect(upper.body).toMatchObject({ id: onTime.id, status: 3, success: true });
      expect(details.body).not.toHaveProperty('statusBill');
    }
  });

  it('a slip created with a past due date is overdue at once; failed slips cannot be paid', async () => {
    const past = await issue({ dueDate: '2026-03-01' });
    expect(past.statusBill).toBe(9);
    const failed = await issue({ statusIntegration: 9 });
    expect((await pay(failed.id)).status).toBe(409);
    expect((await pay('00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await pay(past.id, { paidAt: '2099-01-01T00:00:00Z' })).status).toBe(400);
    // Nor before the day it was issued (2026-03-10 here).
    const early = await pay(past.id, { paidAt: '2026-03-09T12:00:00-03:00' });
    expect(early.status).toBe(400);
    expect((early.body as { tag: string }[])[0]?.tag).toBe('paidAt');
    const paidUpper = await pay(String(past.id).toUpperCase());
    expect(paidUpper.status).toBe(200);
    expect(paidUpper.body).toMatchObject({ id: past.id, statusBill: 3 });
  });
});

describe('a slip is paid once', () => {
  it('two payments recorded at once: one is, the other is 409 and changes nothing', async () => {
    const slip = await issue({ value: 10 });
    const both = await Promise.all([
      paySlip(sb.sandbox.ctx, slip.id as string, { cents: 1_000 }),
      paySlip(sb.sandbox.ctx, slip.id as string, { cents: 2_000 }),
    ]);
    expect(both.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(both.find((r) => !r.ok)).toMatchObject({ status: 409, tag: 'statusBill' });
    // The list tells what the accepted payment's answer told.
    const paid = both.find((r) => r.ok);
    const details = await q('information', { accountNumber: '1001', id_bill: slip.id as string });
    expect(details.body).toMatchObject({
      status: 3,
      effectivePaymentValue: paid?.ok ? slipRow(paid.slip).effectivePaymentValue : 'none',
    });
  });
});

describe('query validation and account scope', () => {
  const base = { accountNumber: '1001', startDate: '2026-03-01', endDate: '2026-03-31' };
  it.each([
    ['list/by/due-date', { ...base, startDate: '2026-03-31', endDate: '2026-03-01' }, 'endDate'],
    ['list/by/due-date', { ...base, startDate: '2026-13-01' }, 'startDate'],
    ['list/by/payment-date', { ...base, endDate: '31/03/2026' }, 'endDate'],
    ['list/by/payment-date', { ...base, accountNumber: '1'.repeat(19) }, 'accountNumber'],
    ['list/by/credit-date', { ...base, statusIntegration: '3' }, 'statusIntegration'],
    ['list/by/credit-date', { ...base, endDate: '2028-03-31' }, 'endDate'],
    ['list/by/due-date', { startDate: '2026-03-01', endDate: '2026-03-31' }, 'accountNumber'],
  ])('%s %o → 400 naming %s', async (path, params, field) => {
    const res = await q(path, params as Record<string, string>);
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[])[0]?.tag).toBe(field);
  });

  it('another account is 403 on every read', async () => {
    for (const path of ['list/by/due-date', 'list/by/payment-date', 'list/by/credit-date']) {
      expect((await q(path, { ...base, accountNumber: '2002' })).status).toBe(403);
    }
    const details = await q('information', { accountNumber: '2002', id_bill: 'x' });
    expect(details.status).toBe(403);
    expect(details.body).toMatchObject({ success: false });
  });

  it('details answer success:false with the reason for a bad or unknown id', async () => {
    const missing = await q('information', { accountNumber: '1001' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, message: expect.stringContaining('id_bill') });
    const unknown = await q('information', { accountNumber: '1001', id_bill: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false });
  });

  it('needs an Integration token', async () => {
    const res = await sb.call('GET', '/api/billissuer/list/by/due-date', { token: null });
    expect(res.status).toBe(401);
  });
});

describe('the last representable due date', () => {
  it('a slip due 9999-12-31 is issued and the clock still runs everything else', async () => {
    const own = await startSandbox({
      deps: { clock: new OffsetClock(0, { now: () => new Date('2026-03-10T15:00:00Z') }) },
    });
    try {
      const issueOwn = (dueDate: string) =>
        own.call('POST', '/__sandbox/bank-slips', {
          token: null,
          body: { accountNumber: '1001', value: 10, dueDate },
        });
      const last = await issueOwn('9999-12-31');
      expect(last.status).toBe(201);
      const soon = await issueOwn('2026-03-11');
      expect(soon.status).toBe(201);
      const advanced = await own.call('POST', '/__sandbox/clock/advance', {
        token: null,
        body: { days: 2 },
      });
      expect(advanced.status).toBe(200);
      const statusOn = async (date: string) => {
        const params = new URLSearchParams({
          accountNumber: '1001',
          startDate: date,
          endDate: date,
        });
        const list = await own.call('GET', `/api/billissuer/list/by/due-date?${params}`);
        return (list.body as Row[]).map((r) => [r.id, r.statusBill]);
      };
      expect(await statusOn('2026-03-11')).toEqual([[(soon.body as Row).id, 9]]);
      expect(await statusOn('9999-12-31')).toEqual([[(last.body as Row).id, 2]]);
    } finally {
      await own.close();
    }
  });
});

describe('a slip due on a weekend', () => {
  it('is payable without charges through the next business day, then overdue', async () => {
    // Friday 2026-03-13, 12:00 São Paulo.
    const own = await startSandbox({
      deps: { clock: new OffsetClock(0, { now: () => new Date('2026-03-13T15:00:00Z') }) },
    });
    try {
      const made = await own.call('POST', '/__sandbox/bank-slips', {
        token: null,
        body: { accountNumber: '1001', value: 150.5, dueDate: '2026-03-14' }, // a Saturday
      });
      expect(made.status).toBe(201);
      const id = (made.body as Row).id as string;
      const status = async () => {
        const params = { accountNumber: '1001', startDate: '2026-03-14', endDate: '2026-03-14' };
        const rows = (
          await own.call('GET', `/api/billissuer/list/by/due-date?${new URLSearchParams(params)}`)
        ).body as Row[];
        return rows.find((r) => r.id === id)?.statusBill;
      };
      const advance = async (hours: number) =>
        expect(
          (await own.call('POST', '/__sandbox/clock/advance', { token: null, body: { hours } }))
            .status,
        ).toBe(200);
      // A slip due that Saturday, issued now: its status.
      const issuedForSaturday = async (value: number) =>
        (
          (
            await own.call('POST', '/__sandbox/bank-slips', {
              token: null,
              body: { accountNumber: '1001', value, dueDate: '2026-03-14' },
            })
          ).body as Row
        ).statusBill;
      await advance(37); // Sunday 01:00
      expect(await status()).toBe(2);
      // Issued that Sunday for the Saturday before: payable on Monday, not overdue.
      expect(await issuedForSaturday(12)).toBe(2);
      await advance(46); // Monday 23:00: the next business day, still payable
      expect(await status()).toBe(2);
      await advance(2); // Tuesday 01:00
      expect(await status()).toBe(9);
      // Issued now for that Saturday: past its next business day, overdue at once.
      expect(await issuedForSaturday(10)).toBe(9);
    } finally {
      await own.close();
    }
  });
});
