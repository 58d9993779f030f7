import { createHash } from 'node:crypto';
import type { SandboxContext } from '../context';
import type { DueTask } from '../clock/scheduler';
import {
  businessDayOnOrAfter,
  nextBusinessDay,
  spDate,
  spIso,
  spStartOfNextDay,
} from '../reconciliation/calendar';
import { barcode, digitableLine, pixEmv } from './codes';
import type { BankSlipRow } from './store';
import { randomDigits, uuid } from '../../lib/ids';

/** Bank code printed on sandbox slips. */
export const SANDBOX_BANK_CODE = '001';

export const STATUS_BILL = { processing: 1, issued: 2, paid: 3, overdue: 9, failed: 99 } as const;

export interface IssueSlipInput {
  accountNumber: string;
  cents: number;
  dueDate: string;
  issueDate?: string | undefined;
  payer: {
    document: string;
    name: string;
    streetAndNumber: string;
    zipCode: string;
    city: string;
    state: string;
    neighborhood: string;
    phoneNumber?: string | undefined;
  };
  referenceCode?: string | undefined;
  /** Include a Pix EMV code (default true). */
  pix: boolean;
  /** Outcome of the registration with the bank: 2 issued (default), 1, 9 or 99. */
  statusIntegration: 1 | 2 | 9 | 99;
}

/** A deterministic EVP-shaped Pix key per account, so codes of one account share a key. */
function pixKey(accountNumber: string): string {
  const h = createHash('sha256').update(`pix:${accountNumber}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Issues a slip: codes are generated only when the bank registered it (statusIntegration 2). */
export async function issueSlip(ctx: SandboxContext, input: IssueSlipInput): Promise<BankSlipRow> {
  const now = ctx.clock.now();
  const today = spDate(now);
  const id = uuid();
  const ourNumber = randomDigits(11);
  const issued = input.statusIntegration === 2;
  let statusBill: number = STATUS_BILL.issued;
  if (input.statusIntegration === 1) statusBill = STATUS_BILL.processing;
  else if (input.statusIntegration !== 2) statusBill = STATUS_BILL.failed;
  else if (payableUntil(input.dueDate) < today) statusBill = STATUS_BILL.overdue;
  let code: string | null = null;
  if (issued) {
    const account = input.accountNumber.slice(-8).padStart(8, '0');
    code = barcode({
      bankCode: SANDBOX_BANK_CODE,
      dueDate: input.dueDate,
      cents: input.cents,
      freeField: `${ourNumber}0001${account}17`,
    });
  }
  const row: BankSlipRow = {
    id,
    account_number: input.accountNumber,
    our_number: ourNumber,
    value_cents: input.cents,
    issue_date: input.issueDate ?? today,
    due_date: input.dueDate,
    payer_document: input.payer.document,
    payer_name: input.payer.name,
    payer_street: input.payer.streetAndNumber,
    payer_zip: input.payer.zipCode,
    payer_city: input.payer.city,
    payer_state: input.payer.state,
    payer_neighborhood: input.payer.neighborhood,
    payer_phone: input.payer.phoneNumber ?? null,
    reference_code: input.referenceCode ?? null,
    bar_code: code,
    digitable_line: code ? digitableLine(code) : null,
    pix_emv:
      issued && input.pix
        ? pixEmv({
            key: pixKey(input.accountNumber),
            merchantName: `CONTA ${input.accountNumber}`,
            merchantCity: 'SAO PAULO',
            cents: input.cents,
            txid: id.replace(/-/g, '').slice(0, 25),
          })
        : null,
    status_bill: statusBill,
    status_integration: input.statusIntegration,
    paid_at: null,
    effective_payment_date: null,
    effective_credit_date: null,
    paid_cents: null,
    created_at: now.toISOString(),
  };
  await ctx.db.insertInto('bank_slips').values(row).execute();
  return row;
}

export type PaySlipResult =
  | { ok: true; slip: BankSlipRow }
  | { ok: false; status: 404 | 409 | 400; tag: string; description: string };

/**
 * Records a payment: statusBill 3, the payment date is the São Paulo day of `paidAt`, the
 * credit date the next business day (weekends skipped; holidays are not modelled).
 */
export async function paySlip(
  ctx: SandboxContext,
  id: string,
  input: { cents?: number | undefined; paidAt?: string | undefined },
): Promise<PaySlipResult> {
  const slip = await findSlip(ctx, id);
  if (!slip) return { ok: false, status: 404, tag: 'id', description: `id: no bank slip ${id}` };
  if (slip.status_bill !== STATUS_BILL.issued && slip.status_bill !== STATUS_BILL.overdue) {
    return {
      ok: false,
      status: 409,
      tag: 'statusBill',
      description: `statusBill: a slip in status ${slip.status_bill} cannot be paid (only 2 issued or 9 overdue)`,
    };
  }
  const now = ctx.clock.now();
  const paidAt = input.paidAt ? new Date(input.paidAt) : now;
  if (paidAt.getTime() > now.getTime()) {
    return {
      ok: false,
      status: 400,
      tag: 'paidAt',
      description: 'paidAt: must not be after the sandbox clock',
    };
  }
  const paymentDate = spDate(paidAt);
  if (paymentDate < slip.issue_date) {
    return {
      ok: false,
      status: 400,
      tag: 'paidAt',
      description: `paidAt: must not be before the slip's issue date ${slip.issue_date}`,
    };
  }
  const cents = input.cents ?? slip.value_cents;
  if (cents < slip.value_cents) {
    return {
      ok: false,
      status: 400,
      tag: 'value',
      description: `value: less than the slip's ${(slip.value_cents / 100).toFixed(2)} (a boleto is not paid in part)`,
    };
  }
  const update = {
    status_bill: STATUS_BILL.paid,
    paid_at: spIso(paidAt),
    effective_payment_date: paymentDate,
    effective_credit_date: nextBusinessDay(paymentDate),
    paid_cents: cents,
  };
  // Still payable when written: of two payments recorded at once, one is, the other is 409.
  const res = await ctx.db
    .updateTable('bank_slips')
    .set(update)
    .where('id', '=', slip.id)
    .where('status_bill', 'in', [STATUS_BILL.issued, STATUS_BILL.overdue])
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) {
    return {
      ok: false,
      status: 409,
      tag: 'statusBill',
      description: 'statusBill: the slip was paid meanwhile; it cannot be paid again',
    };
  }
  return { ok: true, slip: { ...slip, ...update } };
}

/** A slip by its id, a GUID stored in lower case: either case finds it. */
export async function findSlip(ctx: SandboxContext, id: string): Promise<BankSlipRow | undefined> {
  return ctx.db
    .selectFrom('bank_slips')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
}

/** The sandbox's late charge: a 2 % penalty on the value; what is paid beyond it is interest. */
export const LATE_PENALTY_PCT = 2;

/**
 * What a slip paid after `payableUntil` carried beyond its value, as the penalty (up to
 * `LATE_PENALTY_PCT` of the value) and the interest (the rest), in cents; zeros otherwise.
 */
export function lateChargesReceived(slip: BankSlipRow): { penalty: number; interest: number } {
  const paidLate =
    slip.effective_payment_date !== null &&
    slip.effective_payment_date > payableUntil(slip.due_date);
  const extra = (slip.paid_cents ?? 0) - slip.value_cents;
  if (!paidLate || extra <= 0) return { penalty: 0, interest: 0 };
  const penalty = Math.min(extra, Math.round((slip.value_cents * LATE_PENALTY_PCT) / 100));
  return { penalty, interest: extra - penalty };
}

/**
 * The last day a slip is paid without charges: its due date, or, when that falls on a weekend,
 * the next business day (FEBRABAN; holidays are not modelled).
 */
export function payableUntil(dueDate: string): string {
  try {
    return businessDayOnOrAfter(dueDate);
  } catch {
    return dueDate; // the last representable days
  }
}

/** Issued slips become overdue (statusBill 9) when the São Paulo day after `payableUntil` begins. */
export function overdueTask(ctx: SandboxContext): DueTask {
  return {
    name: 'bank-slips.overdue',
    async nextDueAt() {
      const row = await ctx.db
        .selectFrom('bank_slips')
        .select((eb) => eb.fn.min('due_date').as('due'))
        .where('status_bill', '=', STATUS_BILL.issued)
        .executeTakeFirst();
      // payableUntil never moves a later due date before an earlier one's.
      return row?.due ? spStartOfNextDay(payableUntil(row.due)) : null;
    },
    async runDue(now) {
      const today = spDate(now);
      const past = await ctx.db
        .selectFrom('bank_slips')
        .select(['id', 'due_date'])
        .where('status_bill', '=', STATUS_BILL.issued)
        .where('due_date', '<', today)
        .execute();
      const late = past.filter((r) => payableUntil(r.due_date) < today).map((r) => r.id);
      if (late.length === 0) return;
      await ctx.db
        .updateTable('bank_slips')
        .set({ status_bill: STATUS_BILL.overdue })
        .where('status_bill', '=', STATUS_BILL.issued)
        .where('id', 'in', late)
        .execute();
    },
  };
}
