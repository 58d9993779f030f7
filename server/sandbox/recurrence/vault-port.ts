import type { SandboxContext } from '../context';

/** Outcome of charging a vaulted card (CONTRACTS: `authorizeVaulted`). */
export type VaultCharge =
  | { ok: true; payment: { paymentId: string } }
  | {
      ok: false;
      reason: 'not_found' | 'declined' | 'error';
      returnCode?: string;
      description: string;
    };

/**
 * What recurrence needs from the card vault. The sandbox wires `findVault` and
 * `authorizeVaulted` of `server/sandbox/vault/service.ts`; tests may pass their own.
 */
export interface VaultPort {
  find(ctx: SandboxContext, userName: string, vaultId: string): Promise<object | null>;
  /** Optional: load the cards a batch is about to charge in one go (a cache warm-up). */
  prefetch?(
    ctx: SandboxContext,
    cards: readonly { userName: string; vaultId: string }[],
  ): Promise<void>;
  authorize(
    ctx: SandboxContext,
    input: {
      userName: string;
      vaultId: string;
      /** Cents. */
      amount: number;
      referenceTransaction?: string | undefined;
      billingId?: string | undefined;
    },
  ): Promise<VaultCharge>;
}
