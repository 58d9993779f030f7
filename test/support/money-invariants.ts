import { billingOnlySales, checkBillings } from './money-billings';
import type { AttemptRowView, LedgerSale, MoneyWorld } from './money-world';
import { checkReceived } from './money-received';

/** The money rules, checked against the sandbox and the BFF's store after every step. */

const TERMINAL = new Set([
  'checkout_session.succeeded',
  'checkout_session.failed',
  'checkout_session.expired',
]);

/**
 * The attempt a ledger sale belongs to: its reference ends with the attempt id, or (a plan's
 * billing) is the order number its subscription was made with.
 */
function ownerOf(sale: LedgerSale, attempts: readonly AttemptRowView[], plan: Set<string>) {
  const ref = sale.transactionReference ?? '';
  return attempts
    .filter((a) =>
      plan.has(a.session_id)
        ? ref === a.gateway_reference
        : ref === a.id || ref.endsWith(`/${a.id}`),
    )
    .map((a) => a.id);
}

export function fail(what: string, detail: unknown): never {
  throw new Error(`money invariant broken: ${what}\n${JSON.stringify(detail, null, 2)}`);
}

/**
 * Checks every rule. `settled`: the resolver has run past its windows (and no delayed call is
 * still at the gateway), so every attempt must agree with the sandbox.
 */
export async function checkInvariants(w: MoneyWorld, settled: boolean): Promise<void> {
  // The store first, then the ledger: a sale the store knows of is in the ledger read after.
  const [attempts, sessions, events] = await w.state();
  const ledger = await w.ledger();
  const plan = new Set(sessions.filter((s) => s.plan_id).map((s) => s.id));
  const refs = new Map(sessions.map((s) => [s.id, s.reference_transaction]));
  const byId = new Map(attempts.map((a) => [a.id, a]));
  const charged = new Map<string, LedgerSale>();
  // A subscription's later billings are its own, not its checkout's charge (checkBillings).
  const billingOnly = await billingOnlySales(w, attempts);

  // Every sale at the gateway belongs to exactly one attempt, which does not deny it.
  for (const sale of ledger) {
    if (billingOnly.has(sale.transactionPaymentIdWeb ?? '')) continue;
    const owners = ownerOf(sale, attempts, plan);
    if (owners.length !== 1) fail('a sale not linked to exactly one attempt', { sale, owners });
    const a = byId.get(owners[0]!)!;
    charged.set(a.id, sale);
    // The gateway got the merchant's reference (a prefix of whole characters) and the attempt.
    const merchantRef = refs.get(a.session_id) ?? '';
    const sent = (sale.transactionReference ?? '').slice(0, -a.id.length - 1);
    if (!plan.has(a.session_id) && (!merchantRef.startsWith(sent) || (merchantRef && !sent))) {
      fail('the gateway holds another reference than the merchant gave', { sale, merchantRef });
    }
    if (a.status === 'succeeded') {
      if (a.nsu !== sale.nsu) fail('a succeeded attempt names another sale', { a, sale });
    } else if (settled || !['unknown', 'challenge'].includes(a.status)) {
      fail(`a charged attempt is ${a.status}`, { a, sale });
    }
    if (a.canceled_at && sale.transactionStatus !== 'C') {
      fail('an attempt canceled that the gateway did not cancel', { a, sale });
    }
    // The gateway's own Canceled notification reaches the BFF when its webhooks are on.
    if (settled && w.webhooks && sale.transactionStatus === 'C' && !a.canceled_at) {
      fail('a payment the gateway canceled is not canceled at the BFF', { a, sale });
    }
  }

  for (const a of attempts) {
    // A trial charges nothing at checkout.
    if (a.status === 'succeeded' && !charged.has(a.id) && !a.trial_days) {
      fail('a succeeded attempt with no sale at the gateway', a);
    }
    if (settled && ['unknown', 'challenge'].includes(a.status)) {
      fail('an attempt still unknown after the resolver ran past its windows', a);
    }
  }

  // What the shopper was told: "failed" never for a payment that happened, "succeeded" only
  // for one that did.
  for (const ans of w.answers) {
    const sale = charged.get(ans.attemptId);
    if (ans.result.status === 'failed' && sale)
      fail('the shopper was told failed, but charged', ans);
    if (ans.result.status === 'succeeded' && !sale && !ans.result.payment.trial)
      fail('told succeeded, nothing charged', ans);
  }

  for (const s of sessions) {
    const mine = attempts.filter((a) => a.session_id === s.id);
    const won = mine.filter((a) => a.status === 'succeeded');
    if (won.length > 1) fail('a session with two approved charges', { s, won });
    if ((won.length === 1) !== (s.status === 'succeeded')) {
      fail('session status and its attempts disagree', { s, mine });
    }
    if (['pending', 'processing'].includes(s.status) && !mine.some((a) => a.status === 'unknown')) {
      fail('a session waiting on no unknown attempt', { s, mine });
    }
    const own = events.filter((e) => e.session_id === s.id);
    const terminal = own.filter((e) => TERMINAL.has(e.type));
    if (terminal.length > 1) fail('two terminal events for one session', { s, terminal });
    const success = own.filter((e) => e.type === 'checkout_session.succeeded').length;
    if (success !== won.length) fail('success events and charges disagree', { s, success, won });
    for (const e of own.filter((x) => x.type === 'checkout_session.succeeded')) {
      // The merchant's event names the very charge the gateway made.
      const data = JSON.parse(e.data) as {
        status?: string;
        payment?: { paymentId?: string; nsu?: string | null } | null;
      };
      const sale = won[0] && charged.get(won[0].id);
      // A trial's names none: nothing was charged at checkout.
      const trial = Boolean(won[0]?.trial_days);
      if (
        data.status !== 'succeeded' ||
        (!trial &&
          (!sale ||
            data.payment?.paymentId !== sale.transactionPaymentIdWeb ||
            data.payment?.nsu !== sale.nsu))
      ) {
        fail('a success event that does not name the charge', { e, sale });
      }
    }
    for (const e of terminal) {
      if (e.type !== `checkout_session.${s.status}`)
        fail('a terminal event the session denies', { s, e });
    }
    if (['succeeded', 'failed', 'expired'].includes(s.status) && terminal.length !== 1) {
      fail('an ended session without its event', { s, terminal });
    }
  }

  const cancels = new Map<string, number>();
  for (const e of events.filter((x) => x.type === 'payment.canceled')) {
    const id = (JSON.parse(e.data) as { attemptId: string }).attemptId;
    cancels.set(id, (cancels.get(id) ?? 0) + 1);
    if (!byId.get(id)?.canceled_at) fail('payment.canceled for an attempt not canceled', e);
  }
  for (const [id, n] of cancels) if (n > 1) fail('two payment.canceled for one payment', id);
  await checkPlans(w, settled, attempts, sessions, events, ledger);
  await checkReceived(w);
}

/**
 * A plan session paid holds one live subscription at the gateway, that of its won attempt; one
 * not paid holds none once the resolver ran past its windows; no subscription is unknown.
 */
async function checkPlans(
  w: MoneyWorld,
  settled: boolean,
  attempts: readonly AttemptRowView[],
  sessions: Awaited<ReturnType<MoneyWorld['sessionRows']>>,
  events: Awaited<ReturnType<MoneyWorld['events']>>,
  ledger: readonly LedgerSale[],
): Promise<void> {
  if (!w.planSessions.length) return;
  const subs = await w.subscriptions();
  const byRef = new Map(attempts.map((a) => [a.gateway_reference, a]));
  const live = new Map<string, string[]>();
  for (const sub of subs) {
    const a = byRef.get(sub.orderNumber);
    if (!a) fail('a subscription no attempt made', sub);
    if (sub.status === 'Canceled') continue;
    live.set(a.session_id, [...(live.get(a.session_id) ?? []), sub.id]);
    if (settled && a.status !== 'succeeded')
      fail('a live subscription of an attempt not won', { sub, a });
  }
  for (const s of sessions.filter((x) => x.plan_id)) {
    const mine = live.get(s.id) ?? [];
    if (mine.length > 1) fail('a plan session with two live subscriptions', { s, mine });
    const won = attempts.find((a) => a.session_id === s.id && a.status === 'succeeded');
    // Its own, live unless the merchant canceled it (money-billings.ts).
    const own = subs.find((x) => x.id === won?.subscription_id);
    if (won && (!own || mine.some((id) => id !== own.id))) {
      fail('a paid plan session without its one subscription', { s, won, mine });
    }
    if (settled && !won && mine.length)
      fail('an unpaid plan session still subscribed', { s, mine });
    // The merchant hears of the subscription once, and only of one that was paid for.
    const created = events.filter(
      (e) => e.session_id === s.id && e.type === 'subscription.created',
    );
    if (created.length !== (won ? 1 : 0))
      fail('subscription.created events disagree', { s, created, won });
  }
  await checkBillings(w, settled, { subs, attempts, sessions, events, ledger });
}

/** No card number or ciphertext in a log line or a stored row. */
export async function checkNoCardData(w: MoneyWorld): Promise<void> {
  const logs = w.logs().join('\n');
  const store = await w.storeText();
  for (const secret of w.secrets) {
    const probe = secret.length > 40 ? secret.slice(0, 40) : secret;
    if (logs.includes(probe)) fail('card data in the logs', probe);
    if (store.includes(probe)) fail('card data in the store', probe);
  }
}
