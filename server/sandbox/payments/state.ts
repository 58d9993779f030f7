import { createHmac } from 'node:crypto';
import type { SandboxContext } from '../context';
import { CardKeys } from '../keys/card-keys';
import { OutcomeQueue } from './outcomes';

/** In-memory state of the payment domains, one per sandbox (keyed by its context). */
export interface PaymentsState {
  keys: CardKeys;
  outcomes: OutcomeQueue;
  /**
   * HMAC key of PaRes tokens: derived from the KEK, so a bank's decision made before a restart
   * is still its word after it (a PaRes is also bound to its authentication and good once).
   */
  paresSecret: Buffer;
  /** HMAC key of the 3DS card fingerprints: derived from the KEK, never in the database. */
  cardFingerprintKey: Buffer;
  /** When used nonces were last purged (real time, ms). */
  lastNoncePurgeMs: number;
}

const states = new WeakMap<SandboxContext, PaymentsState>();

/** Creates the payment domains' state; `createSandboxApp` calls it once. */
export function initPaymentsState(ctx: SandboxContext, kek: Buffer): PaymentsState {
  const state: PaymentsState = {
    keys: new CardKeys(ctx, kek),
    outcomes: new OutcomeQueue(),
    paresSecret: createHmac('sha256', kek).update('three-ds pares').digest(),
    cardFingerprintKey: createHmac('sha256', kek).update('three-ds card fingerprint').digest(),
    lastNoncePurgeMs: 0,
  };
  states.set(ctx, state);
  ctx.onReset(() => {
    state.outcomes.clear();
    state.lastNoncePurgeMs = 0;
  });
  return state;
}

export function paymentsState(ctx: SandboxContext): PaymentsState {
  const state = states.get(ctx);
  if (!state) throw new Error('payments state not initialized (initPaymentsState)');
  return state;
}
