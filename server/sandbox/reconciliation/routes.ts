import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { errorResponse, parseJsonBody, parseQuery } from '../../lib/http';
import type { SandboxContext, SandboxEnv } from '../context';
import type { WebhookService } from '../webhooks/service';
import {
  AnticipationBodySchema,
  DEFAULT_ANTICIPATION_TAX_PCT,
  anticipationOf,
  setAnticipation,
} from './anticipation';
import { spIso, spStartOfDay } from './calendar';
import { FeeTableSchema } from './fees';
import { accountNumberParam, dateParam, dateRangeQuery, forbidOtherAccount } from './query';
import { loadFees, saveFees, setInstallmentStatus } from './service';
import type { LedgerSplit } from './ledger';
import type { ConcilRow } from './store';

/** Decimal 10,4 (the spec's size): a JSON number with at most four decimals. */
const money = (u4: number) => Number(u4) / 10_000;
const dec4 = (v: number) => Math.round(v * 10_000) / 10_000;
const dateTime = (date: string | null) => (date ? spIso(spStartOfDay(date)) : null);

/** The spec's reconciliation installment row. */
export function installmentRow(r: ConcilRow) {
  return {
    transactionDate: r.transaction_date,
    terminal: r.terminal,
    cardNumber: r.card_number,
    cardType: r.card_type,
    cardName: r.card_name,
    codAuth: r.cod_auth,
    nsu: r.nsu,
    installmentNumber: r.installment_number,
    installmentsCount: r.installments_count,
    installmentValue: money(r.installment_u4),
    transactionTotalValue: money(r.total_u4),
    installmentStatus: r.installment_status,
    discountMdrValue: money(r.mdr_u4),
    discountMdrTax: dec4(r.mdr_tax),
    discountTrnRateInstalmentValue: money(r.trn_installment_u4),
    discountTrnRateTransactionValue: money(r.trn_transaction_u4),
    discountAntifraudRateInstalmentValue: money(r.antifraud_installment_u4),
    discountAntifraudRateTransactionValue: money(r.antifraud_transaction_u4),
    discountAntecipationValue: money(r.antecipation_u4),
    discountAntecipationTax: dec4(r.antecipation_tax),
    receivedValue: money(r.received_u4),
    receivedDateForeast: dateTime(r.received_date_forecast),
    receivedDateEffective: dateTime(r.received_date_effective),
    receivedType: r.received_type,
    receivedStatus: r.received_status,
    transactionReference: r.transaction_reference,
    transactionPaymentIdWeb: r.payment_id,
    ...(r.splits_json ? { splits: splitsOf(r.splits_json) } : {}),
  };
}

function splitsOf(json: string) {
  return (JSON.parse(json) as LedgerSplit[]).map((s) => ({
    ...s,
    pctSplit: dec4(s.pctSplit),
    valorBaseSplit: dec4(s.valorBaseSplit),
    valorSplit: dec4(s.valorSplit),
  }));
}

/**
 * The summary row, one per transaction. As in the spec's body shape, `installments` and
 * `amount` are strings; `amount` is a decimal 10,4, so it has four decimals (`"123.4500"`). The status is C when canceled, B when blocked, else A.
 */
export function summaryRows(rows: ConcilRow[]) {
  const byPayment = new Map<string, ConcilRow[]>();
  for (const r of rows) {
    const list = byPayment.get(r.payment_id) ?? [];
    list.push(r);
    byPayment.set(r.payment_id, list);
  }
  return [...byPayment.values()].map((list) => {
    const r = list[0]!;
    const statuses = new Set(list.map((x) => x.installment_status));
    return {
      transactionDate: r.transaction_date,
      terminal: r.terminal,
      cardNumber: r.card_number,
      cardType: r.card_type,
      cardName: r.card_name,
      nsu: r.nsu,
      codAuth: r.cod_auth,
      installments: String(r.installments_count),
      amount: money(r.total_u4).toFixed(4),
      transactionStatus: statuses.has('C') ? 'C' : statuses.has('B') ? 'B' : 'A',
      transactionReference: r.transaction_reference,
      transactionPaymentIdWeb: r.payment_id,
    };
  });
}

const queryDecimal = z
  .string()
  .regex(/^\d{1,6}(\.\d{1,4})?$/, {
    error: 'must be a decimal with at most 6 integer digits and 4 decimals',
  })
  .transform((v) => Math.round(Number(v) * 10_000));

const ByCodeQuery = z
  .object({
    accountNumber: accountNumberParam,
    nsu: z.string().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
    codAuth: z.string().min(1).max(30, { error: 'must be at most 30 characters' }).optional(),
  })
  .refine((q) => q.nsu !== undefined || q.codAuth !== undefined, {
    path: ['nsu'],
    error: 'nsu or codAuth is required',
  });

const ByAuthCodeQuery = z.object({
  accountNumber: accountNumberParam,
  codAuth: z
    .string({ error: 'is required' })
    .min(1, { error: 'is required' })
    .max(30, { error: 'must be at most 30 characters' }),
  operationDate: dateParam.optional(),
  value: queryDecimal.optional(),
  installmentValue: queryDecimal.optional(),
  installmentNumber: z
    .string()
    .regex(/^\d{1,2}$/, { error: 'must be a whole number from 1 to 99' })
    .transform(Number)
    .pipe(z.number().min(1, { error: 'must be a whole number from 1 to 99' }))
    .optional(),
});

const RangeQuery = dateRangeQuery({});

/** Integration API: the five reconciliation searches (POST, query parameters, no body). */
export function reconciliationApiRoutes(ctx: SandboxContext): Hono<SandboxEnv> {
  const base = (c: Context<SandboxEnv>) =>
    ctx.db
      .selectFrom('concil_installments')
      .selectAll()
      .where('account_number', '=', c.get('client').accountNumber);
  const order = <Q extends ReturnType<typeof base>>(q: Q) =>
    q.orderBy('transaction_date').orderBy('payment_id').orderBy('installment_number');

  const range =
    (column: 'operation_date' | 'received_date_forecast', summary: boolean) =>
    async (c: Context<SandboxEnv>) => {
      const q = parseQuery(c, RangeQuery);
      if (!q.ok) return q.response;
      const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
      if (denied) return denied;
      const rows = await order(
        base(c).where(column, '>=', q.data.startDate).where(column, '<=', q.data.endDate),
      ).execute();
      return c.json(summary ? summaryRows(rows) : rows.map(installmentRow));
    };

  return new Hono<SandboxEnv>()
    .post('/transaction/concil/search-by-code', async (c) => {
      const q = parseQuery(c, ByCodeQuery);
      if (!q.ok) return q.response;
      const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
      if (denied) return denied;
      let query = base(c);
      if (q.data.nsu) query = query.where('nsu', '=', q.data.nsu);
      if (q.data.codAuth) query = query.where('cod_auth', '=', q.data.codAuth);
      return c.json((await order(query).execute()).map(installmentRow));
    })
    .post('/transaction/concil/search-by-auth-code', async (c) => {
      const q = parseQuery(c, ByAuthCodeQuery);
      if (!q.ok) return q.response;
      const denied = forbidOtherAccount(c, c.get('client'), q.data.accountNumber);
      if (denied) return denied;
      let query = base(c).where('cod_auth', '=', q.data.codAuth);
      if (q.data.operationDate) query = query.where('operation_date', '=', q.data.operationDate);
      if (q.data.value !== undefined) query = query.where('total_u4', '=', q.data.value);
      if (q.data.installmentValue !== undefined) {
        query = query.where('installment_u4', '=', q.data.installmentValue);
      }
      if (q.data.installmentNumber !== undefined) {
        query = query.where('installment_number', '=', q.data.installmentNumber);
      }
      return c.json((await order(query).execute()).map(installmentRow));
    })
    .post('/transaction/concil/search-by-operation-date', range('operation_date', true))
    .post(
      '/transaction/concil/search-by-operation-date-installments',
      range('operation_date', false),
    )
    .post('/transaction/concil/search-by-payment-date', range('received_date_forecast', false));
}

/** `/__sandbox`: the fee table, and blocking a transaction (what the acquirer's risk team does). */
export function reconciliationControlRoutes(ctx: SandboxContext, webhooks: WebhookService): Hono {
  const move = (to: 'A' | 'B') => async (c: Context) => {
    const nsu = c.req.param('nsu') ?? '';
    if (!/^[A-Za-z0-9]{1,100}$/.test(nsu)) {
      return errorResponse(c, 400, 'nsu', 'nsu: must be 1 to 100 letters or digits');
    }
    const before = await ctx.db
      .selectFrom('concil_installments')
      .select(['installment_status'])
      .where('nsu', '=', nsu)
      .execute();
    if (before.length === 0) return errorResponse(c, 404, 'nsu', `nsu: no transaction ${nsu}`);
    const from = to === 'B' ? 'A' : 'B';
    if (!before.some((r) => r.installment_status === from)) {
      return errorResponse(
        c,
        409,
        'installmentStatus',
        `installmentStatus: no installment is ${from === 'A' ? 'approved' : 'blocked'}`,
      );
    }
    const rows = await setInstallmentStatus(ctx, webhooks, { nsu }, to, ctx.clock.now());
    return c.json({
      nsu,
      installments: (rows ?? []).map((r) => ({
        installmentNumber: r.installment_number,
        installmentStatus: r.installment_status,
      })),
    });
  };
  return new Hono()
    .get('/reconciliation/fees', async (c) => c.json(await loadFees(ctx)))
    .put('/reconciliation/fees', async (c) => {
      const body = await parseJsonBody(c, FeeTableSchema.partial().strict());
      if (!body.ok) return body.response;
      const fees = FeeTableSchema.parse({ ...(await loadFees(ctx)), ...stripUndefined(body.data) });
      await saveFees(ctx, fees);
      return c.json(fees);
    })
    .put('/accounts/:accountNumber/anticipation', async (c) => {
      const account = c.req.param('accountNumber');
      if (!/^\d{1,18}$/.test(account)) {
        return errorResponse(c, 400, 'accountNumber', 'accountNumber: must be 1 to 18 digits');
      }
      const body = await parseJsonBody(c, AnticipationBodySchema);
      if (!body.ok) return body.response;
      return c.json(await setAnticipation(ctx, account, body.data));
    })
    .get('/accounts/:accountNumber/anticipation', async (c) => {
      const account = c.req.param('accountNumber');
      const a = await anticipationOf(ctx, account);
      return c.json({
        accountNumber: account,
        enabled: a !== null,
        monthlyTaxPct: a?.monthlyTaxPct ?? DEFAULT_ANTICIPATION_TAX_PCT,
      });
    })
    .post('/transactions/:nsu/block', move('B'))
    .post('/transactions/:nsu/unblock', move('A'));
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
