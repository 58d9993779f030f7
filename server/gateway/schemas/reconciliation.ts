import { z } from 'zod';
import {
  decimalLoose,
  isCalendarDate,
  looseInt,
  looseNumber,
  queryDate,
  queryInt,
  queryLong,
  respDateTime,
  str,
} from './common';

/*
 * Reconciliation search (spec: Integration API, "Reconciliation search"). All five are POST
 * with query parameters only and no body; each answers a JSON array.
 *
 * Where the spec contradicts itself, what we accept:
 * - The summary row: the dictionary capitalises field names and types `installments` int and
 *   `amount` decimal; the body shape is camelCase and carries both as strings. We read
 *   camelCase and accept numbers or numeric strings for both (parsed to numbers).
 * - Decimals "10,4" are read as precision 10, scale 4 (six integer digits); answers are only
 *   checked for being numbers, queries for the scale and size.
 * - Which query parameters are required is not stated: `accountNumber` always; `codAuth` for
 *   the authorization-code search; `nsu` or `codAuth` for the code search; both dates for the
 *   date searches (start ≤ end).
 */

const queryDecimal = decimalLoose(10, 4);

/** `…/search-by-code`: accountNumber, nsu (≤100), codAuth (≤30). */
export const ConcilByCodeQuerySchema = z
  .object({
    accountNumber: queryLong,
    nsu: str(100).min(1, { error: 'must not be empty' }).optional(),
    codAuth: str(30).min(1, { error: 'must not be empty' }).optional(),
  })
  .refine((q) => q.nsu !== undefined || q.codAuth !== undefined, {
    path: ['nsu'],
    error: 'nsu or codAuth is required',
  });
export type ConcilByCodeQuery = z.infer<typeof ConcilByCodeQuerySchema>;

/** `…/search-by-auth-code`: codAuth plus optional narrowing by date, values and installment. */
export const ConcilByAuthCodeQuerySchema = z.object({
  accountNumber: queryLong,
  codAuth: str(30).min(1, { error: 'is required' }),
  operationDate: queryDate.optional(),
  /** Sum of all installments. */
  value: queryDecimal.optional(),
  installmentValue: queryDecimal.optional(),
  installmentNumber: queryInt({ min: 1 }).optional(),
});
export type ConcilByAuthCodeQuery = z.infer<typeof ConcilByAuthCodeQuerySchema>;

/** accountNumber, startDate, endDate (YYYY-MM-DD, start ≤ end). */
export const ConcilDateRangeQuerySchema = z
  .object({ accountNumber: queryLong, startDate: queryDate, endDate: queryDate })
  .refine(
    (q) => !isCalendarDate(q.startDate) || !isCalendarDate(q.endDate) || q.startDate <= q.endDate,
    { path: ['endDate'], error: 'must not be before startDate' },
  );
export type ConcilDateRangeQuery = z.infer<typeof ConcilDateRangeQuerySchema>;

/** `…/search-by-operation-date` (summary rows). */
export const ConcilByOperationDateQuerySchema = ConcilDateRangeQuerySchema;
/** `…/search-by-operation-date-installments` (installment rows). */
export const ConcilByOperationDateInstallmentsQuerySchema = ConcilDateRangeQuerySchema;
/** `…/search-by-payment-date` (installment rows). */
export const ConcilByPaymentDateQuerySchema = ConcilDateRangeQuerySchema;

export const INSTALLMENT_STATUSES = ['A', 'B', 'C'] as const;
export const RECEIVED_TYPES = ['R', 'A', 'E'] as const;
export const RECEIVED_STATUSES = ['A', 'P'] as const;

const amount = looseNumber;
const optText = (max: number) => str(max).nullish();

export const ConcilSplitSchema = z.object({
  beneficiario: optText(14),
  tipoSplit: optText(10),
  pctSplit: amount.nullish(),
  valorBaseSplit: amount.nullish(),
  valorSplit: amount.nullish(),
});
export type ConcilSplit = z.infer<typeof ConcilSplitSchema>;

/**
 * One installment of a transaction (code, authorization-code, operation-date-installments and
 * payment-date searches). Fields the gateway may not know yet (receipt dates, reference) may be
 * null.
 */
export const ConcilInstallmentRowSchema = z.object({
  transactionDate: respDateTime,
  terminal: optText(30),
  cardNumber: optText(15),
  cardType: optText(50),
  cardName: optText(50),
  codAuth: optText(30),
  nsu: str(100),
  installmentNumber: looseInt,
  installmentsCount: looseInt,
  installmentValue: amount,
  transactionTotalValue: amount,
  installmentStatus: z.enum(INSTALLMENT_STATUSES),
  discountMdrValue: amount.nullish(),
  discountMdrTax: amount.nullish(),
  discountTrnRateInstalmentValue: amount.nullish(),
  discountTrnRateTransactionValue: amount.nullish(),
  discountAntifraudRateInstalmentValue: amount.nullish(),
  discountAntifraudRateTransactionValue: amount.nullish(),
  discountAntecipationValue: amount.nullish(),
  discountAntecipationTax: amount.nullish(),
  receivedValue: amount.nullish(),
  receivedDateForeast: respDateTime.nullish(),
  receivedDateEffective: respDateTime.nullish(),
  receivedType: z.enum(RECEIVED_TYPES).nullish(),
  receivedStatus: z.enum(RECEIVED_STATUSES).nullish(),
  transactionReference: optText(100),
  transactionPaymentIdWeb: optText(100),
  /** Only when a split is configured. */
  splits: z.array(ConcilSplitSchema).nullish(),
});
export type ConcilInstallmentRow = z.infer<typeof ConcilInstallmentRowSchema>;

/**
 * One row per transaction (operation-date search). `installments` and `amount` arrive as
 * strings in the spec's body shape and as numbers per its dictionary: both are accepted and
 * parsed to numbers.
 */
export const ConcilSummaryRowSchema = z.object({
  transactionDate: respDateTime,
  terminal: optText(30),
  cardNumber: optText(15),
  cardType: optText(50),
  cardName: optText(50),
  nsu: str(100),
  codAuth: optText(30),
  installments: looseInt,
  amount,
  transactionStatus: z.enum(INSTALLMENT_STATUSES),
  transactionReference: optText(100),
  transactionPaymentIdWeb: optText(100),
});
export type ConcilSummaryRow = z.infer<typeof ConcilSummaryRowSchema>;

export const ConcilInstallmentRowsSchema = z.array(ConcilInstallmentRowSchema);
export const ConcilSummaryRowsSchema = z.array(ConcilSummaryRowSchema);
