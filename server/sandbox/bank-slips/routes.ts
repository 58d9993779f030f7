import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { decimalLoose, isoDate, isoDateTime, reqStr } from '../../gateway/schemas/common';
import { errorResponse, parseJsonBody, parseQuery } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import { accountNumberParam, dateRangeQuery, forbidOtherAccount } from '../reconciliation/query';
import { spDate, spIso, spStartOfDay } from '../reconciliation/calendar';
import { FIRST_FACTOR_DATE, MAX_BARCODE_CENTS } from './codes';
import {
  findSlip,
  issueSlip,
  lateChargesReceived,
  LATE_PENALTY_PCT,
  overdueTask,
  paySlip,
  STATUS_BILL,
} from './service';
import type { BankSlipRow } from './store';

/** Slip values: the spec's "decimal 11,2 … format 0.00", answered as that string. */
const money = (cents: number | null) => (cents === null ? null : (cents / 100).toFixed(2));

/** Row of the due-date and payment-date lists. */
export function slipRow(s: BankSlipRow) {
  return {
    id: s.id,
    value: money(s.value_cents),
    issueDate: s.issue_date,
    dueDate: s.due_date,
    payerDocument: s.payer_document,
    payerName: s.payer_name,
    payerStreetAndNumber: s.payer_street,
    payerZipCode: s.payer_zip,
    payerCity: s.payer_city,
    payerCityState: s.payer_state,
    payerNeighborhood: s.payer_neighborhood,
    payerPhoneNumber: s.payer_phone,
    effectivePaymentDate: s.effective_payment_date,
    effectiveCreditDate: s.effective_credit_date,
    effectivePaymentValue: money(s.paid_cents),
    barCode: s.bar_code,
    digitableLine: s.digitable_line,
    pixEmv: s.pix_emv,
    statusBill: s.status_bill,
    statusIntegration: s.status_integration,
  };
}

/** Row of the credit-date list: PascalCase, datetimes for the effective dates. */
export function creditRow(s: BankSlipRow) {
  const late = lateChargesReceived(s);
  return {
    Id: s.id,
    Value: money(s.value_cents),
    IssueDate: s.issue_date,
    DueDate: s.due_date,
    PayerDocument: s.payer_document,
    PayerName: s.payer_name,
    PayerZipCode: s.payer_zip,
    PayerCity: s.payer_city,
    PayerCityState: s.payer_state,
    PayerStreetAndNumber: s.payer_street,
    PayerNeighborhood: s.payer_neighborhood,
    PayerPhoneNumber: s.payer_phone,
    EffectivePaymentDate: s.paid_at,
    EffectiveCreditDate: s.effective_credit_date
      ? spIso(spStartOfDay(s.effective_credit_date))
      : null,
    EffectivePaymentValue: money(s.paid_cents),
    BarCode: s.bar_code,
    OurNumber: s.our_number,
    DigitableLine: s.digitable_line,
    PixEmv: s.pix_emv,
    StatusBill: s.status_bill,
    ReferenceCode: s.reference_code,
    OverduePaymentAllow: true,
    OverduePaymentDateLimit: null,
    OverduePaymentPenalty: money(Math.round((s.value_cents * LATE_PENALTY_PCT) / 100)),
    OverduePenaltyReceived: money(late.penalty),
    OverduePaymentInterest: money(0),
    OverdueInterestReceived: money(late.interest),
    CancelDate: null,
    CancellationReason: null,
  };
}

/**
 * Details: the due-date row's fields plus `status`, `success`, `message`. The details
 * enumeration has no 9 (overdue), so an overdue slip, still payable, reports 2 (issued).
 */
export function slipDetails(s: BankSlipRow) {
  const { statusBill, statusIntegration: _si, ...row } = slipRow(s);
  void _si;
  return {
    ...row,
    status: statusBill === STATUS_BILL.overdue ? STATUS_BILL.issued : statusBill,
    success: true,
    message: '',
  };
}

const ByCreditQuery = dateRangeQuery({
  statusIntegration: z
    .enum(['1', '2', '9', '99'], { error: 'must be 1, 2, 9 or 99' })
    .transform(Number)
    .optional(),
});
const ByDateQuery = dateRangeQuery({});

const InformationQuery = z
  .object({
    accountNumber: accountNumberParam,
    id_bill: z.string().min(1).max(36, { error: 'must be at most 36 characters' }).optional(),
    id: z.string().min(1).max(36, { error: 'must be at most 36 characters' }).optional(),
  })
  .refine((q) => q.id_bill !== undefined || q.id !== undefined, {
    path: ['id_bill'],
    error: 'is required (id_bill or id)',
  });

/** Integration API: the four bank slip reads, limited to the token's own account. */
export function bankSlipApiRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  const list =
    (column: 'due_date' | 'effective_payment_date', paidOnly: boolean) =>
    async (c: Context<SandboxEnv>) => {
      const q = parseQuery(c, ByDateQuery);
      if (!q.ok) return q.response;
      const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
      if (denied) return denied;
      let query = ctx.db
        .selectFrom('bank_slips')
        .selectAll()
        .where('account_number', '=', c.get('client').accountNumber)
        .where(column, '>=', q.data.startDate)
        .where(column, '<=', q.data.endDate);
      if (paidOnly) query = query.where('status_bill', '=', STATUS_BILL.paid);
      const rows = await query.orderBy(column).orderBy('created_at').execute();
      return c.json(rows.map(slipRow));
    };

  return new Hono<SandboxEnv>()
    .get('/billissuer/list/by/due-date', list('due_date', false))
    .get('/billissuer/list/by/payment-date', list('effective_payment_date', true))
    .get('/billissuer/list/by/credit-date', async (c) => {
      const q = parseQuery(c, ByCreditQuery);
      if (!q.ok) return q.response;
      const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
      if (denied) return denied;
      let query = ctx.db
        .selectFrom('bank_slips')
        .selectAll()
        .where('account_number', '=', c.get('client').accountNumber)
        .where('effective_credit_date', '>=', q.data.startDate)
        .where('effective_credit_date', '<=', q.data.endDate);
      if (q.data.statusIntegration !== undefined) {
        query = query.where('status_integration', '=', q.data.statusIntegration);
      }
      const rows = await query.orderBy('effective_credit_date').orderBy('created_at').execute();
      return c.json(rows.map(creditRow));
    })
    .get('/billissuer/information', async (c) => {
      // This operation answers errors in its own shape: {success: false, message}.
      const fail = (status: 400 | 403 | 404, message: string) =>
        c.json({ success: false, message }, status);
      const parsed = InformationQuery.safeParse(c.req.query());
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.map(String).join('.') || 'query';
        return fail(400, `${field}: ${issue.message}`);
      }
      if (BigInt(parsed.data.accountNumber) !== BigInt(c.get('client').accountNumber)) {
        return fail(403, 'accountNumber: not an account of the authenticated client');
      }
      const id = (parsed.data.id_bill ?? parsed.data.id)!;
      const slip = await findSlip(ctx, id);
      if (!slip || slip.account_number !== c.get('client').accountNumber) {
        return fail(404, `id_bill: no bank slip ${id} in this account`);
      }
      return c.json(slipDetails(slip));
    });
}

const digits = (n: number | [number, number], what: string) =>
  z
    .string()
    .regex(
      typeof n === 'number'
        ? new RegExp(`^\\d{${n}}$`)
        : new RegExp(`^(\\d{${n[0]}}|\\d{${n[1]}})$`),
      {
        error: `must be ${what}, digits only`,
      },
    );

const IssueFlatSchema = z
  .object({
    accountNumber: z
      .union([z.string(), z.number()])
      .pipe(z.coerce.string())
      .pipe(accountNumberParam),
    value: decimalLoose(11, 2).refine((v) => v > 0 && Math.round(v * 100) <= MAX_BARCODE_CENTS, {
      error: `must be greater than 0 and at most ${MAX_BARCODE_CENTS / 100} (the barcode's 10 digits)`,
    }),
    dueDate: isoDate.refine((d) => d >= FIRST_FACTOR_DATE, {
      error: `must be on or after ${FIRST_FACTOR_DATE} (first due-date factor)`,
    }),
    issueDate: isoDate.optional(),
    payerDocument: digits([11, 14], 'a CPF (11) or CNPJ (14)').default('12345678909'),
    payerName: reqStr(50).default('Pagador Sandbox'),
    payerStreetAndNumber: reqStr(100).default('Rua Exemplo, 100'),
    payerZipCode: digits(8, '8 digits').default('01001000'),
    payerCity: reqStr(100).default('Sao Paulo'),
    payerCityState: z
      .string()
      .regex(/^[A-Z]{2}$/, { error: 'must be a 2-letter UF' })
      .default('SP'),
    payerNeighborhood: reqStr(50).default('Centro'),
    payerPhoneNumber: z.string().max(20, { error: 'must be at most 20 characters' }).optional(),
    referenceCode: z.string().max(50, { error: 'must be at most 50 characters' }).optional(),
    pix: z.boolean().default(true),
    statusIntegration: z
      .union([z.literal(1), z.literal(2), z.literal(9), z.literal(99)], {
        error: 'must be 1, 2, 9 or 99',
      })
      .default(2),
  })
  .strict();

const PAYER_FIELDS: Record<string, string> = {
  document: 'payerDocument',
  name: 'payerName',
  streetAndNumber: 'payerStreetAndNumber',
  zipCode: 'payerZipCode',
  city: 'payerCity',
  cityState: 'payerCityState',
  state: 'payerCityState',
  neighborhood: 'payerNeighborhood',
  phoneNumber: 'payerPhoneNumber',
};

/**
 * The issue body: the row's flat `payer…` fields, or the same under a `payer` object
 * (`{payer: {name, document, zipCode, …}}`), which is flattened first.
 */
const IssueBodySchema = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || !('payer' in raw)) return raw;
  const { payer, ...rest } = raw as { payer: unknown } & Record<string, unknown>;
  if (typeof payer !== 'object' || payer === null) return raw;
  const flat: Record<string, unknown> = { ...rest };
  for (const [k, v] of Object.entries(payer)) flat[PAYER_FIELDS[k] ?? `payer.${k}`] = v;
  return flat;
}, IssueFlatSchema);

const PayBodySchema = z
  .object({
    value: decimalLoose(11, 2)
      .refine((v) => v > 0, { error: 'must be greater than 0' })
      .optional(),
    paidAt: isoDateTime.optional(),
  })
  .strict();

/** `/__sandbox/bank-slips`: issue a slip and pay it (what a bank would do). */
export function bankSlipControlRoutes(ctx: SandboxContext): Hono {
  return new Hono()
    .post('/bank-slips', async (c) => {
      const body = await parseJsonBody(c, IssueBodySchema);
      if (!body.ok) return body.response;
      const b = body.data;
      if (!ctx.clients.some((cl) => BigInt(cl.accountNumber) === BigInt(b.accountNumber))) {
        return errorResponse(c, 400, 'accountNumber', 'accountNumber: no sandbox client has it');
      }
      // The day it was issued is past or today: a slip issued later would be listed before it exists.
      const today = spDate(ctx.clock.now());
      if (b.issueDate !== undefined && b.issueDate > today) {
        return errorResponse(
          c,
          400,
          'issueDate',
          `issueDate: must not be after the sandbox's today ${today}`,
        );
      }
      const slip = await issueSlip(ctx, {
        accountNumber: ctx.clients.find(
          (cl) => BigInt(cl.accountNumber) === BigInt(b.accountNumber),
        )!.accountNumber,
        cents: Math.round(b.value * 100),
        dueDate: b.dueDate,
        issueDate: b.issueDate,
        payer: {
          document: b.payerDocument,
          name: b.payerName,
          streetAndNumber: b.payerStreetAndNumber,
          zipCode: b.payerZipCode,
          city: b.payerCity,
          state: b.payerCityState,
          neighborhood: b.payerNeighborhood,
          phoneNumber: b.payerPhoneNumber,
        },
        referenceCode: b.referenceCode,
        pix: b.pix,
        statusIntegration: b.statusIntegration,
      });
      return c.json(slipRow(slip), 201);
    })
    .post('/bank-slips/:id/pay', async (c) => {
      const body = await parseJsonBody(c, PayBodySchema);
      if (!body.ok) return body.response;
      const r = await paySlip(ctx, c.req.param('id'), {
        cents: body.data.value === undefined ? undefined : Math.round(body.data.value * 100),
        paidAt: body.data.paidAt,
      });
      if (!r.ok) return errorResponse(c, r.status, r.tag, r.description);
      return c.json(slipRow(r.slip));
    });
}

/** Wires the bank slip domain: overdue slips follow the sandbox clock. */
export function registerBankSlips(ctx: SandboxContext): void {
  ctx.scheduler.register(overdueTask(ctx));
}
