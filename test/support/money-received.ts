import { isDeepStrictEqual } from 'node:util';
import type { CheckoutEvent } from '../../contract/events';
import { fail } from './money-invariants';
import type { MoneyWorld } from './money-world';

/**
 * What the merchant's events receiver got (test/support/money-delivery.ts), checked against the
 * BFF's events table and the gateway's ledger: after every step what was seen is right, and at
 * the run's end (`checkDelivered`) everything the table holds was seen.
 */

/**
 * The facts an event tells of: the merchant learns each from one event id only, however often
 * it is delivered. A session ends once (whichever way), a payment succeeds once.
 */
function factsOf(e: CheckoutEvent): string[] {
  const d = e.data as {
    id?: string;
    attemptId?: string;
    sessionId?: string;
    subscriptionId?: string;
    nsu?: string;
    payment?: { paymentId?: string | null } | null;
  };
  switch (e.type) {
    case 'checkout_session.succeeded':
      return [`session ${d.id}`, ...(d.payment?.paymentId ? [`paid ${d.payment.paymentId}`] : [])];
    case 'checkout_session.failed':
    case 'checkout_session.expired':
      return [`session ${d.id}`];
    case 'payment.canceled':
      return [`canceled ${d.attemptId}`];
    case 'subscription.created':
      return [`subscription ${d.id}`, `subscribed ${d.sessionId}`];
    case 'billing.canceled':
      return [`billing.canceled ${d.subscriptionId} ${d.nsu}`];
    default:
      return [`${e.type} ${d.id}`];
  }
}

/**
 * Every delivery the receiver verified carries its event's id as `webhook-id` (so all of one
 * event's deliveries carry one), holds the very event the table holds, and tells of a fact no
 * other event id told of; a payment it says succeeded or was canceled is so in the ledger; an
 * event the table marks delivered was received; no card data reached the receiver.
 */
export async function checkReceived(w: MoneyWorld): Promise<void> {
  // What was seen before the reads is in them (an event is sent once committed).
  const seen = [...w.receiver.seen];
  const [rows, ledger] = await Promise.all([w.events(), w.ledger()]);
  const received = new Set(w.receiver.received.map((e) => e.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const facts = new Map<string, Set<string>>();
  for (const { webhookId, event, status } of seen) {
    if (webhookId !== event.id) fail('a delivery whose webhook-id is not its event id', seen);
    const row = byId.get(event.id);
    if (
      !row ||
      row.type !== event.type ||
      !isDeepStrictEqual(JSON.parse(row.data) as unknown, event.data)
    ) {
      fail('the merchant got an event the BFF does not hold', { event, row, status });
    }
    for (const fact of factsOf(event)) {
      facts.set(fact, (facts.get(fact) ?? new Set()).add(event.id));
    }
    const d = event.data as {
      nsu?: string;
      payment?: { paymentId?: string | null; nsu?: string; subscriptionId?: string | null };
    };
    // A plan checkout whose first billing charged nothing yet (a trial) names no sale: its
    // billings are checked by money-billings.ts.
    const trial = !!d.payment?.subscriptionId && !d.payment.paymentId;
    if (
      event.type === 'checkout_session.succeeded' &&
      !trial &&
      !ledger.some(
        (s) => s.transactionPaymentIdWeb === d.payment?.paymentId && s.nsu === d.payment?.nsu,
      )
    ) {
      fail('the merchant was told of a payment the gateway did not make', event);
    }
    if (
      event.type === 'payment.canceled' &&
      !ledger.some((s) => s.nsu === d.nsu && s.transactionStatus === 'C')
    ) {
      fail('the merchant was told of a cancellation the gateway did not make', event);
    }
  }
  for (const [fact, ids] of facts) {
    if (ids.size > 1) fail('the merchant got two events of one fact', { fact, ids: [...ids] });
  }
  for (const row of rows) {
    if (row.delivery_status === 'delivered' && !received.has(row.id)) {
      fail('an event marked delivered that the receiver never answered 2xx', row);
    }
  }
  const bodies = w.receiver.bodies.join('\n');
  for (const secret of w.secrets) {
    const probe = secret.length > 40 ? secret.slice(0, 40) : secret;
    if (bodies.includes(probe)) fail('card data in an event sent to the merchant', probe);
  }
}

/** At the run's end: every event of the table was delivered, and the receiver verified it. */
export async function checkDelivered(w: MoneyWorld): Promise<void> {
  const received = new Set(w.receiver.received.map((e) => e.id));
  const missing = (await w.events()).filter(
    (r) => r.delivery_status !== 'delivered' || !received.has(r.id),
  );
  if (missing.length) fail('events the merchant never got', missing);
}
