import type { PaymentRecord } from '../events';
import { addDays, businessDayOnOrAfter, daysBetween, nextBusinessDay } from './calendar';
import { mdrPct, type FeeTable } from './fees';

/**
 * Pure ledger arithmetic. Money is held in integer ten-thousandths of a real (u4), the
 * spec's decimal scale "10,4", so fees and receipts add up exactly.
 */
export const U4_PER_CENT = 100;
export const u4 = (brl: number) => Math.round(brl * 10_000);

/** Splits `total` into `n` parts, the remainder on the first. */
export function splitEven(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  return Array.from({ length: n }, (_, i) => (i === 0 ? total - base * (n - 1) : base));
}

export interface LedgerSplit {
  beneficiario: string;
  tipoSplit: string;
  pctSplit: number;
  valorBaseSplit: number;
  valorSplit: number;
}

export interface LedgerInstallment {
  installmentNumber: number;
  installmentsCount: number;
  installmentU4: number;
  totalU4: number;
  mdrTaxPct: number;
  mdrU4: number;
  trnInstallmentU4: number;
  trnTransactionU4: number;
  antifraudInstallmentU4: number;
  antifraudTransactionU4: number;
  receivedU4: number;
  receivedDateForecast: string;
  /**
   * R regular; E (the spec's "automatic anticipation") when the account's standing switch
   * brought the receipt forward (then the two below are set).
   */
  receivedType: 'R' | 'E';
  antecipationU4: number;
  /** Percent per month charged for anticipating. */
  antecipationTaxPct: number;
  splits: LedgerSplit[] | null;
}

/** An account's anticipation: receipts on the next business day for a monthly rate. */
export interface Anticipation {
  monthlyTaxPct: number;
}

/**
 * The receivable installments of an approved payment: value split with the remainder on the
 * first, MDR by product and installments, transaction and (credit) anti-fraud fees split the
 * same way, receipt dates (credit: 30 days per installment; debit: next day).
 */
export function installmentsOf(
  payment: Pick<PaymentRecord, 'amount' | 'installments' | 'transactionType' | 'configSplit'>,
  operationDate: string,
  fees: FeeTable,
  anticipation: Anticipation | null = null,
): LedgerInstallment[] {
  const n = Math.max(1, payment.installments);
  const totalU4 = payment.amount * U4_PER_CENT;
  const values = splitEven(payment.amount, n).map((c) => c * U4_PER_CENT);
  const trnTotal = u4(fees.transactionFee);
  const afTotal = payment.transactionType === 'credit' ? u4(fees.antifraudFee) : 0;
  const trn = splitEven(trnTotal, n);
  const af = splitEven(afTotal, n);
  const tax = mdrPct(fees, payment.transactionType, n);
  return values.map((value, i) => {
    const mdr = Math.round((value * tax) / 100);
    const net = value - mdr - trn[i]! - af[i]!;
    const days =
      payment.transactionType === 'debit'
        ? fees.debitReceiptDays
        : fees.creditReceiptDays * (i + 1);
    // Receivables are paid on business days: one falling on a weekend moves to the Monday.
    const regularDate = businessDayOnOrAfter(addDays(operationDate, days));
    // Anticipated: paid on the next business day, less the monthly rate pro rata for the days
    // brought forward (none when the regular date is not later).
    const anticipatedDate = anticipation ? nextBusinessDay(operationDate) : regularDate;
    const daysEarly = Math.max(0, daysBetween(anticipatedDate, regularDate));
    const early = anticipation !== null && daysEarly > 0;
    // Simple interest over a long schedule (60 installments, years early) would pass the net:
    // the discount takes at most the whole net, never more than is received.
    const antecipation = early
      ? Math.min(net, Math.round((net * anticipation.monthlyTaxPct * daysEarly) / 3000))
      : 0;
    const received = net - antecipation;
    return {
      installmentNumber: i + 1,
      installmentsCount: n,
      installmentU4: value,
      totalU4,
      mdrTaxPct: tax,
      mdrU4: mdr,
      trnInstallmentU4: trn[i]!,
      trnTransactionU4: trnTotal,
      antifraudInstallmentU4: af[i]!,
      antifraudTransactionU4: afTotal,
      receivedU4: received,
      receivedDateForecast: early ? anticipatedDate : regularDate,
      receivedType: early ? 'E' : 'R',
      antecipationU4: antecipation,
      antecipationTaxPct: early ? anticipation.monthlyTaxPct : 0,
      splits: payment.configSplit?.length
        ? payment.configSplit.map((s) => {
            const pct = s.percent ?? 0;
            const type = s.type ?? 'bruto';
            const base = type === 'liquido' ? received : value;
            return {
              beneficiario: s.documentNumberBeneficiary ?? '',
              tipoSplit: type,
              pctSplit: pct,
              valorBaseSplit: base / 10_000,
              valorSplit: percentOfU4(base, pct) / 10_000,
            };
          })
        : null,
    };
  });
}

/**
 * `pct` percent (2 decimals, the spec's 5,2) of `u4`, rounded half up like every other value of
 * the row: in integers, since 0.57 % of R$ 2.50 is 142.5 units and `2.5e4 * 0.57 / 100` is
 * 142.49999… in floating point.
 */
function percentOfU4(u4: number, pct: number): number {
  const basisPoints = BigInt(Math.round(pct * 100));
  return Number((BigInt(u4) * basisPoints + 5_000n) / 10_000n);
}
