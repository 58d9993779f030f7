import { z } from 'zod';
import {
  dateOrDateTime,
  isCalendarDate,
  looseInt,
  looseNumber,
  queryDate,
  queryLong,
  str,
} from './common';

/*
 * Bank slips (spec: Integration API, "Bank slips"; resources "Bank slip row", "Bank slip row
 * (list by credit date)", "Bank slip details"). All GET.
 *
 * Where the spec contradicts itself, what we accept:
 * - The details query names the slip `id_bill` in the endpoint table and `id` in the
 *   parameter table: the query schema accepts either (both with different values is refused)
 *   and outputs `{accountNumber, id}`; the client sends both names with the same value.
 * - The credit-date row is PascalCase while the other lists are camelCase: two schemas.
 * - Credit-date dates are typed "datetime" but formatted "YYYY-MM-DD": both forms accepted.
 * - The details `status` enumeration has no 9 (overdue) unlike `statusBill`: we accept the
 *   `statusBill` values there too.
 * - Details report failure in the body (`success: false`, `message`) with no status stated;
 *   the client turns a 2xx with `success: false` into a `GatewayValidationError`.
 * - Optional row fields (payer phone, effective dates and value, bar code, digitable line, Pix
 *   EMV…) may be null or absent.
 */

export const STATUS_BILL_VALUES = [1, 2, 3, 9, 99] as const;
export const STATUS_INTEGRATION_VALUES = [1, 2, 9, 99] as const;

const statusBill = looseInt.refine((v) => (STATUS_BILL_VALUES as readonly number[]).includes(v), {
  error: 'must be 1, 2, 3, 9 or 99',
});
const statusIntegration = looseInt.refine(
  (v) => (STATUS_INTEGRATION_VALUES as readonly number[]).includes(v),
  { error: 'must be 1, 2, 9 or 99' },
);

const dateRange = { accountNumber: queryLong, startDate: queryDate, endDate: queryDate };
const startBeforeEnd = (q: { startDate: string; endDate: string }) =>
  !isCalendarDate(q.startDate) || !isCalendarDate(q.endDate) || q.startDate <= q.endDate;

/** `/api/billissuer/list/by/due-date` and `/by/payment-date`. */
export const BankSlipDateRangeQuerySchema = z
  .object(dateRange)
  .refine(startBeforeEnd, { path: ['endDate'], error: 'must not be before startDate' });
export type BankSlipDateRangeQuery = z.infer<typeof BankSlipDateRangeQuerySchema>;

/** `/api/billissuer/list/by/credit-date`: plus an optional `statusIntegration` filter. */
export const BankSlipCreditDateQuerySchema = z
  .object({
    ...dateRange,
    statusIntegration: z
      .enum(['1', '2', '9', '99'], { error: 'must be 1, 2, 9 or 99' })
      .transform(Number)
      .optional(),
  })
  .refine(startBeforeEnd, { path: ['endDate'], error: 'must not be before startDate' });
export type BankSlipCreditDateQuery = z.infer<typeof BankSlipCreditDateQuerySchema>;

/** `/api/billissuer/information`: `id_bill` or `id` (see above), output `{accountNumber, id}`. */
export const BankSlipInformationQuerySchema = z
  .object({
    accountNumber: queryLong,
    id_bill: str(36).min(1, { error: 'must not be empty' }).optional(),
    id: str(36).min(1, { error: 'must not be empty' }).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.id_bill === undefined && q.id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['id_bill'], message: 'is required (id_bill or id)' });
    } else if (q.id_bill !== undefined && q.id !== undefined && q.id_bill !== q.id) {
      ctx.addIssue({
        code: 'custom',
        path: ['id'],
        message: 'must equal id_bill when both are sent',
      });
    }
  })
  .transform((q) => ({ accountNumber: q.accountNumber, id: (q.id_bill ?? q.id)! }));
export type BankSlipInformationQuery = z.output<typeof BankSlipInformationQuerySchema>;

const optText = (max?: number) => (max ? str(max) : z.string()).nullish();
const money = looseNumber;

/** Row of the due-date and payment-date lists (camelCase). */
export const BankSlipRowSchema = z.object({
  id: z.string(),
  value: money,
  issueDate: dateOrDateTime.nullish(),
  dueDate: dateOrDateTime,
  payerDocument: optText(14),
  payerName: optText(50),
  payerStreetAndNumber: optText(100),
  payerZipCode: optText(8),
  payerCity: optText(100),
  payerCityState: optText(2),
  payerNeighborhood: optText(50),
  payerPhoneNumber: optText(),
  effectivePaymentDate: dateOrDateTime.nullish(),
  effectiveCreditDate: dateOrDateTime.nullish(),
  effectivePaymentValue: money.nullish(),
  barCode: optText(),
  digitableLine: optText(),
  pixEmv: optText(),
  statusBill,
  statusIntegration,
});
export type BankSlipRow = z.infer<typeof BankSlipRowSchema>;
export const BankSlipRowsSchema = z.array(BankSlipRowSchema);

/** Row of the credit-date list (PascalCase, as the spec lists it). */
export const BankSlipCreditRowSchema = z.object({
  Id: z.string(),
  Value: money,
  IssueDate: dateOrDateTime.nullish(),
  DueDate: dateOrDateTime,
  PayerDocument: str(14),
  PayerName: str(50),
  PayerZipCode: str(8),
  PayerCity: str(100),
  PayerCityState: str(2),
  PayerStreetAndNumber: str(100),
  PayerNeighborhood: str(50),
  PayerPhoneNumber: optText(),
  EffectivePaymentDate: dateOrDateTime.nullish(),
  EffectiveCreditDate: dateOrDateTime.nullish(),
  EffectivePaymentValue: money.nullish(),
  BarCode: optText(),
  OurNumber: optText(),
  DigitableLine: optText(),
  PixEmv: optText(),
  StatusBill: statusBill.nullish(),
  ReferenceCode: optText(),
  OverduePaymentAllow: z.boolean().nullish(),
  OverduePaymentDateLimit: dateOrDateTime.nullish(),
  OverduePaymentPenalty: money.nullish(),
  OverduePenaltyReceived: money.nullish(),
  OverduePaymentInterest: money.nullish(),
  OverdueInterestReceived: money.nullish(),
  CancelDate: dateOrDateTime.nullish(),
  CancellationReason: optText(),
});
export type BankSlipCreditRow = z.infer<typeof BankSlipCreditRowSchema>;
export const BankSlipCreditRowsSchema = z.array(BankSlipCreditRowSchema);

/**
 * `/api/billissuer/information`: the row's fields plus `status`, `success`, `message`. On a
 * failure only `success: false` and `message` are guaranteed, so the row fields are optional.
 */
export const BankSlipDetailsSchema = BankSlipRowSchema.omit({
  statusBill: true,
  statusIntegration: true,
})
  .partial()
  .extend({
    status: statusBill.nullish(),
    success: z.boolean(),
    message: z.string().nullish(),
  });
export type BankSlipDetails = z.infer<typeof BankSlipDetailsSchema>;
