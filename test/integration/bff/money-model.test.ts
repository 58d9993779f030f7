import fc from 'fast-check';
import { describe, it } from 'vitest';
import { routed, stepCommands, type Model } from '../../support/money-commands';
import { deliveryCommands, drainEvents } from '../../support/money-delivery';
import { gatewayCommands } from '../../support/money-gateway';
import { planCommands } from '../../support/money-plans';
import { raceCommands } from '../../support/money-races';
import { gatewayBillings } from '../../support/money-billings';
import { checkInvariants, checkNoCardData } from '../../support/money-invariants';
import { checkDelivered } from '../../support/money-received';
import { MoneyWorld } from '../../support/money-world';

// A model-based test of the money rules over the real stack: random sequences of shopper,
// merchant, gateway and operator actions (test/support/money-commands.ts; the gateway's
// refusals, card key and clock skew in money-gateway.ts) against the BFF and
// the sandbox (two BFF instances on one store, each request to the one its step's route
// picks), the invariants (test/support/money-invariants.ts) checked after every step and,
// once both clocks moved a day past the last step and the resolver ran, every attempt agreeing
// with the gateway's ledger. fast-check prints the seed and the shrunk sequence of a failure.

const RUNS = Number(process.env.MONEY_MODEL_RUNS ?? 20);

describe('money model', () => {
  it('random sequences keep every charge known once to shopper, BFF and merchant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(
          [
            fc.oneof(
              ...routed([
                ...stepCommands,
                ...raceCommands,
                ...planCommands,
                ...deliveryCommands,
                ...gatewayCommands,
              ]),
            ),
          ],
          { maxCommands: 12, size: 'max' },
        ),
        fc.boolean(),
        async (cmds, webhooks) => {
          const w = await MoneyWorld.start(webhooks);
          try {
            await w.openSessions([10_000, 2_501]);
            await w.openPlanSession();
            await w.openPlanSession(w.trialPlanId, 2_990);
            const model: Model = { sessions: 2, keys: 0 };
            await fc.asyncModelRun(() => ({ model, real: w }), cmds);
            await w.advance(25 * 60);
            await drainEvents(w);
            await checkInvariants(w, true);
            // A month on: trials end, subscriptions renew (or decline), all told once.
            await w.advance(35 * 24 * 60);
            await drainEvents(w);
            await checkInvariants(w, true);
            await checkNoCardData(w);
            await checkDelivered(w);
            if (process.env.MONEY_MODEL_TRACE) {
              const attempts = (await w.attempts()).map((a) => `${a.status}/${a.failure_code}`);
              console.warn(
                `${String(cmds)}\n  sales ${(await w.ledger()).length}: ${attempts.join(' ')}` +
                  `\n  subscriptions: ${(await w.subscriptions()).map((x) => x.status).join(' ')}` +
                  `\n  billings: ${(await gatewayBillings(w)).map((b) => `${b.installment}:${b.status}`).join(' ')}` +
                  `\n  receiver answered: ${w.receiver.seen.map((x) => x.status).join(' ')}`,
              );
            }
          } finally {
            await w.close();
          }
        },
      ),
      {
        numRuns: RUNS,
        ...(process.env.MONEY_MODEL_SEED ? { seed: Number(process.env.MONEY_MODEL_SEED) } : {}),
      },
    );
  }, 600_000);
});
