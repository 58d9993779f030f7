import { z } from 'zod';

/**
 * The acquirer's fee table (sandbox configuration; the spec gives no values). Rates are
 * percentages of each installment; fixed fees are in BRL per transaction.
 */
export const FeeTableSchema = z
  .object({
    /** MDR of debit sales. */
    debitMdrPct: z.number().min(0).max(100),
    /** MDR of credit sales in one installment (à vista). */
    creditAvistaMdrPct: z.number().min(0).max(100),
    /** MDR of credit sales in 2 to 6 installments. */
    credit2to6MdrPct: z.number().min(0).max(100),
    /** MDR of credit sales in 7 to 12 installments. */
    credit7to12MdrPct: z.number().min(0).max(100),
    /** Transaction fee, every sale. */
    transactionFee: z.number().min(0).max(1000),
    /** Anti-fraud fee, credit sales (the credit route carries the anti-fraud analysis). */
    antifraudFee: z.number().min(0).max(1000),
    /** Days from the sale to each credit receipt (installment k is paid k × this). */
    creditReceiptDays: z.number().int().min(1).max(60),
    /** Days from the sale to the debit receipt. */
    debitReceiptDays: z.number().int().min(1).max(60),
  })
  .strict();
export type FeeTable = z.infer<typeof FeeTableSchema>;

export const DEFAULT_FEES: FeeTable = {
  debitMdrPct: 1.19,
  creditAvistaMdrPct: 2.79,
  credit2to6MdrPct: 3.29,
  credit7to12MdrPct: 3.69,
  transactionFee: 0.1,
  antifraudFee: 0.15,
  creditReceiptDays: 30,
  debitReceiptDays: 1,
};

export function mdrPct(fees: FeeTable, type: 'credit' | 'debit', installments: number): number {
  if (type === 'debit') return fees.debitMdrPct;
  if (installments <= 1) return fees.creditAvistaMdrPct;
  return installments <= 6 ? fees.credit2to6MdrPct : fees.credit7to12MdrPct;
}
