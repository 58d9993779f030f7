import fc from 'fast-check';
import { eventDeliveryOf } from '../../server/bff/events/delivery';
import { merchant, noBadStatus, pick, pickOf, type Cmd, type Model } from './money-commands';
import { checkInvariants } from './money-invariants';
import { EVENTS_TIMEOUT_MS, type MoneyWorld } from './money-world';

/**
 * Commands of the money model about the merchant's events receiver (`w.receiver`, which every
 * instance delivers to): it misbehaves for its next few requests, or the merchant asks for an
 * event again. Each trouble ends by itself; the run's end (`drainEvents`) lets every event
 * through.
 */

/**
 * `error`: 500; `late`: 2xx past the BFF's timeout (the merchant got it, the BFF does not
 * know); `drop`: the connection is cut unanswered; `slow`: 2xx within the timeout; `ok`: well
 * again at once.
 */
export type Trouble = 'error' | 'late' | 'drop' | 'slow' | 'ok';

/** The receiver answers its next `count` requests per `trouble`, then 204 again. */
function troubleFor(w: MoneyWorld, trouble: Trouble, count: number): void {
  let left = trouble === 'ok' ? 0 : count;
  const mode = trouble === 'late' ? 'slow' : trouble;
  w.receiver.delayMs = trouble === 'late' ? EVENTS_TIMEOUT_MS + 300 : EVENTS_TIMEOUT_MS / 4;
  w.receiver.modeFor = () => (left-- > 0 && mode !== 'ok' ? mode : undefined);
}

/** The events due now sent by the instance the step's route picks, and their answers recorded. */
async function deliverDue(w: MoneyWorld): Promise<void> {
  await eventDeliveryOf(w.to().bff.ctx)!.deliverDue();
}

class ReceiverTrouble implements Cmd {
  constructor(
    readonly trouble: Trouble,
    readonly count: number,
  ) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    troubleFor(w, this.trouble, this.count);
    await deliverDue(w);
    await checkInvariants(w, false);
  }
  toString = () => `Receiver(${this.trouble}, ${this.count})`;
}

/** The merchant asks for an event again (`POST /v1/events/:id/redeliver`): a new series now. */
class Redeliver implements Cmd {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_m: Model, w: MoneyWorld) {
    const event = pickOf(
      (await w.events()).sort((a, b) => a.id.localeCompare(b.id)),
      this.pick,
    );
    if (event) {
      const res = await w.to().request('POST', `/v1/events/${event.id}/redeliver`, {
        headers: merchant,
      });
      noBadStatus('redeliver', res, [202]);
    }
    await checkInvariants(w, false);
  }
  toString = () => `Redeliver(#${this.pick})`;
}

export const deliveryCommands: fc.WeightedArbitrary<Cmd>[] = [
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom<Trouble>('error', 'late', 'drop', 'slow', 'ok'),
        fc.integer({ min: 1, max: 5 }),
      )
      .map(([t, n]) => new ReceiverTrouble(t, n)),
  },
  { weight: 1, arbitrary: pick.map((p) => new Redeliver(p)) },
];

/**
 * The run's end: what is due is sent to the receiver as it is (its trouble may not be over),
 * then it is well, every instance sends what is due, an event the BFF gave up on (three days
 * of failures) the merchant redelivers; the clocks move past any retry still waiting. Resolves
 * once every event is delivered, or after a few rounds (checkDelivered tells).
 */
export async function drainEvents(w: MoneyWorld): Promise<void> {
  await deliverDue(w);
  troubleFor(w, 'ok', 0);
  for (let round = 0; round < 5; round++) {
    for (const { t } of w.instances) await eventDeliveryOf(t.bff.ctx)!.deliverDue();
    const rows = await w.events();
    if (rows.every((r) => r.delivery_status === 'delivered')) return;
    const failed = rows.filter((r) => r.delivery_status === 'failed');
    for (const r of failed) {
      const res = await w.t.request('POST', `/v1/events/${r.id}/redeliver`, { headers: merchant });
      noBadStatus('redeliver', res, [202]);
    }
    // A retry recorded meanwhile (a late answer's): waits at most 12 h.
    if (!failed.length) await w.advance(12 * 60 + 1);
  }
}
