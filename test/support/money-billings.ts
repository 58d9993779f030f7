import { reaisToCents } from '../../server/gateway/money';
import type {
  AttemptRowView,
  GatewaySubscription,
  LedgerSale,
  MoneyWorld,
  ShopperAnswer,
} from './money-world';

/**
 * The money rules of subscriptions over their life (test/support/money-plan-life.ts): every
 * billing the gateway made, charged or not, against the checkout that made its subscription,
 * the shopper's answer, the merchant's events and the gateway's ledger.
 */

/** A billing as the gateway keeps it, with the payment its charge made. */
export interface GatewayBilling {
  id: string;
  subscriptionId: string;
  orderNumber: string;
  installment: number;
  status: string;
  /** Cents. */
  amount: number;
  /** The sale of its charge (the ledger's `transactionPaymentIdWeb`), when it was paid. */
  paymentId: string | null;
}

/**
 * Every billing of the run, read from the sandbox's store: the spec's Billing carries no
 * payment id, so only the gateway's own rows say which sale charged which billing.
 */
export async function gatewayBillings(w: MoneyWorld): Promise<GatewayBilling[]> {
  const rows = await w.sandbox.sandbox.ctx.db
    .selectFrom('recurrence_billings as b')
    .innerJoin('recurrence_subscriptions as s', 's.id', 'b.subscription_id')
    .select([
      'b.id',
      'b.subscription_id',
      's.order_number',
      'b.installment',
      'b.status',
      'b.amount',
      'b.payment_id',
    ])
    .orderBy('b.installment')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    orderNumber: r.order_number,
    installment: r.installment,
    status: r.status,
    amount: reaisToCents(r.amount),
    paymentId: r.payment_id,
  }));
}

/**
 * What the model remembers between checks: how many charges a canceled subscription had, and
 * which subscriptions the merchant asked to cancel.
 */
interface Book {
  chargesAtCancel: Map<string, number>;
  merchantCanceled: Set<string>;
}
const books = new WeakMap<MoneyWorld, Book>();
function bookOf(w: MoneyWorld): Book {
  let b = books.get(w);
  if (!b) books.set(w, (b = { chargesAtCancel: new Map(), merchantCanceled: new Set() }));
  return b;
}

/** The merchant asks for subscription `id` to be canceled. */
export function merchantCancels(w: MoneyWorld, id: string): void {
  bookOf(w).merchantCanceled.add(id);
}

/**
 * The sales of the ledger that are a subscription's billings, not a checkout's charge: the
 * later billings', and a trial's first billing's while no notice linked it to its attempt
 * (its NSU kept). The checkout's own charge (a first billing without trial) is not among them.
 */
export async function billingOnlySales(
  w: MoneyWorld,
  attempts: readonly AttemptRowView[],
): Promise<Set<string>> {
  if (!w.planSessions.length) return new Set();
  const byRef = new Map(attempts.map((a) => [a.gateway_reference, a]));
  const out = new Set<string>();
  for (const b of await gatewayBillings(w)) {
    if (!b.paymentId) continue;
    const a = byRef.get(b.orderNumber);
    if (b.installment > 1 || (a?.trial_days && !a.nsu)) out.add(b.paymentId);
  }
  return out;
}

function fail(what: string, detail: unknown): never {
  throw new Error(`money invariant broken: ${what}\n${JSON.stringify(detail, null, 2)}`);
}

type Row = { id: string; type: string; session_id: string | null; data: string };
type SessionRowView = Awaited<ReturnType<MoneyWorld['sessionRows']>>[number];

const FAILED_BILLING = new Set(['Denied', 'PaymentInvalid']);

/**
 * Each subscription's billings against its checkout: one sale per paid billing, at the amount
 * the shopper was shown; none once canceled; the first billing as the checkout and the
 * shopper's answer say; `billing.paid` / `billing.failed` once per paid / failed billing of a
 * subscription the merchant was told of (all of them once `settled`), none for one it was not.
 */
export async function checkBillings(
  w: MoneyWorld,
  settled: boolean,
  read: {
    subs: readonly GatewaySubscription[];
    attempts: readonly AttemptRowView[];
    sessions: readonly SessionRowView[];
    events: readonly Row[];
    ledger: readonly LedgerSale[];
  },
): Promise<void> {
  const { subs, attempts, sessions, events, ledger } = read;
  const billings = await gatewayBillings(w);
  const byRef = new Map(attempts.map((a) => [a.gateway_reference, a]));
  const sessionOf = new Map(sessions.map((s) => [s.id, s]));
  const salesOf = new Map<string, LedgerSale[]>();
  for (const sale of ledger) {
    const ref = sale.transactionReference ?? '';
    salesOf.set(ref, [...(salesOf.get(ref) ?? []), sale]);
  }
  const book = bookOf(w);
  for (const sub of subs) {
    const a = byRef.get(sub.orderNumber)!;
    const s = sessionOf.get(a.session_id)!;
    const mine = billings.filter((b) => b.subscriptionId === sub.id);
    const paid = mine.filter((b) => b.status === 'Paid');
    const sales = salesOf.get(sub.orderNumber) ?? [];
    const detail = { sub, attempt: a, billings: mine, sales };
    // Every charge is a sale of the ledger, each billing of the amount the checkout told (the
    // one the shopper was shown; the one charged if the plan changed as it was subscribed, its
    // subscription then canceled at once).
    if (sales.length !== paid.length) fail('sales and paid billings disagree', detail);
    for (const sale of sales) {
      const b = paid.find((x) => x.paymentId === sale.transactionPaymentIdWeb);
      if (!b) fail('a sale of a subscription that no paid billing made', { sale, ...detail });
      if (reaisToCents(sale.amount) !== b.amount) fail('a sale of another amount', { b, sale });
    }
    const terms = a.amount === s.amount;
    if (a.status === 'succeeded') {
      for (const b of mine) {
        if (b.amount !== a.amount) fail('a billing of another amount than told', { s, b, a });
      }
      if (!terms && (sub.status !== 'Canceled' || mine.some((b) => b.installment > 1)))
        fail('a subscription on terms never shown left standing', detail);
    }
    // A canceled subscription charges no more.
    if (sub.status === 'Canceled') {
      const before = book.chargesAtCancel.get(sub.id);
      if (before === undefined) book.chargesAtCancel.set(sub.id, paid.length);
      else if (paid.length > before) fail('a canceled subscription charged again', detail);
    }
    const merchant = book.merchantCanceled.has(sub.id);
    if (a.status === 'succeeded' && sub.status === 'Canceled' && terms && !merchant)
      fail('a paid subscription canceled the merchant did not cancel', detail);
    const first = mine.find((b) => b.installment === 1);
    if (a.status === 'succeeded' && !a.trial_days && first?.status !== 'Paid') {
      fail('a plan checkout succeeded on a first billing not paid', detail);
    }
    if (['failed', 'declined'].includes(a.status)) {
      if (first?.status === 'Paid') fail('a plan checkout failed on a paid billing', detail);
      if (sub.status !== 'Canceled') fail('a refused plan checkout left its subscription', detail);
    }
    // The merchant is told of its cancel once, and only of a subscription it was told of.
    const told = events.filter(
      (e) => e.type === 'subscription.canceled' && (JSON.parse(e.data) as Row).id === sub.id,
    );
    if (told.length > 1 || (told.length && (sub.status !== 'Canceled' || a.status !== 'succeeded')))
      fail('subscription.canceled events disagree', { told, ...detail });
    checkAnswers(
      w.answers.filter((x) => x.attemptId === a.id),
      a,
      sub,
      first,
    );
    checkBillingEvents(settled, a, mine, events, detail);
  }
}

/** What the shopper was told agrees with the subscription's first billing. */
function checkAnswers(
  answers: readonly ShopperAnswer[],
  a: AttemptRowView,
  sub: GatewaySubscription,
  billing: GatewayBilling | undefined,
): void {
  const first = billing?.status;
  for (const ans of answers) {
    const r = ans.result;
    if (r.status === 'succeeded') {
      const trial = r.payment.trial;
      if (!trial && first !== 'Paid') fail('told succeeded, first billing not paid', { ans, sub });
      if (!trial && r.payment.amount !== billing?.amount)
        fail('told another amount than the first billing charged', { ans, billing });
      if (trial && (!a.trial_days || r.payment.amount !== 0)) {
        fail('told of a trial the plan does not have', { ans, a });
      }
    }
    if (r.status === 'failed' && (first === 'Paid' || sub.status !== 'Canceled')) {
      fail('told failed, but the subscription stands or charged', { ans, sub, first });
    }
  }
}

/** The merchant's billing events of one subscription: once per charge or final decline. */
function checkBillingEvents(
  settled: boolean,
  a: AttemptRowView,
  mine: readonly { id: string; status: string; amount: number }[],
  events: readonly Row[],
  detail: unknown,
): void {
  const sub = a.subscription_id;
  const own = events
    .filter((e) => e.type === 'billing.paid' || e.type === 'billing.failed')
    .map((e) => ({ type: e.type, data: JSON.parse(e.data) as Record<string, unknown> }))
    .filter((e) => mine.some((b) => b.id === e.data.id));
  if (a.status !== 'succeeded' && own.length) {
    fail('billing events of a subscription the merchant was not told of', { own, detail });
  }
  for (const b of mine) {
    const paid = own.filter((e) => e.type === 'billing.paid' && e.data.id === b.id);
    const failed = own.filter((e) => e.type === 'billing.failed' && e.data.id === b.id);
    if (paid.length > 1 || failed.length > 1) fail('two events for one billing', { b, own });
    if (paid.length && (b.status !== 'Paid' || paid[0]!.data.amount !== b.amount)) {
      fail('billing.paid for a billing not charged so', { b, paid, detail });
    }
    if (failed.length && !FAILED_BILLING.has(b.status)) {
      fail('billing.failed for a billing not failed', { b, failed, detail });
    }
    if (!settled || a.status !== 'succeeded' || !sub) continue;
    if (b.status === 'Paid' && !paid.length) fail('a charge the merchant was not told', { b });
    if (FAILED_BILLING.has(b.status) && !failed.length) {
      fail('a failed billing the merchant was not told', { b });
    }
  }
}
