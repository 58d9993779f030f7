import { z } from 'zod';
import { RETURN_CODES, type CardBehaviour } from './test-cards';

/**
 * `POST /__sandbox/outcomes`: forces what the next `count` payment calls do, whatever the
 * card. `POST /v1/payments`, `POST /v1/payments/3ds` and vaulted charges each take one use;
 * a challenge keeps what it took for its validate call. Fields left out keep the card's own
 * behaviour.
 */
export const OutcomeOverrideSchema = z
  .object({
    count: z.number().int().min(1).max(10_000),
    returnCode: z.enum(RETURN_CODES as [string, ...string[]]).optional(),
    threeDs: z
      .enum(['frictionless', 'challenge', 'challenge_fail', 'frictionless_fail'])
      .optional(),
    internalError: z.boolean().optional(),
  })
  .strict()
  .refine(
    (o) => o.returnCode !== undefined || o.threeDs !== undefined || o.internalError !== undefined,
    {
      error: 'give at least one of returnCode, threeDs, internalError',
    },
  );
export type OutcomeOverride = z.infer<typeof OutcomeOverrideSchema>;

export interface QueuedOverride extends OutcomeOverride {
  id: number;
  remaining: number;
}

export class OutcomeQueue {
  private items: QueuedOverride[] = [];
  private nextId = 1;

  push(o: OutcomeOverride): QueuedOverride {
    const item = { ...o, id: this.nextId++, remaining: o.count };
    this.items.push(item);
    return item;
  }

  /** Takes one use of the oldest override, or null when none is queued. */
  take(): OutcomeOverride | null {
    const head = this.items[0];
    if (!head) return null;
    head.remaining--;
    if (head.remaining <= 0) this.items.shift();
    const { id: _id, remaining: _r, ...o } = head;
    return o;
  }

  list(): readonly QueuedOverride[] {
    return this.items.map((i) => ({ ...i }));
  }

  clear(): void {
    this.items = [];
  }
}

/** A card's behaviour with an override's fields laid over it. */
export function applyOverride(b: CardBehaviour, o: OutcomeOverride | null): CardBehaviour {
  if (!o) return b;
  const out: CardBehaviour = { ...b };
  if (o.returnCode !== undefined) out.returnCode = o.returnCode as CardBehaviour['returnCode'];
  if (o.threeDs !== undefined) out.threeDs = o.threeDs;
  if (o.internalError === true) out.internalError = true;
  if (o.internalError === false) delete out.internalError;
  return out;
}
