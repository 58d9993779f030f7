import { z } from 'zod';
import type { SandboxContext } from '../context';
import type { Anticipation } from './ledger';

/**
 * The anticipation switch per account (control plane): when on, the settlements of payments
 * approved from then on are anticipated — `receivedType` E (automatic), paid on the next business day,
 * `discountAntecipationTax` and `discountAntecipationValue` filled — so merchants can test
 * both shapes of the reconciliation rows. Off by default and after a reset.
 */
export const AnticipationBodySchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }),
    /** Percent per month, pro rata for the days brought forward. */
    monthlyTaxPct: z.number().min(0).max(100).optional(),
  })
  .strict();

export const DEFAULT_ANTICIPATION_TAX_PCT = 1.99;

const key = (accountNumber: string) => `anticipation:${accountNumber}`;

/** Per sandbox: account → its setting (null: off), read once, kept by set and reset. */
const caches = new WeakMap<SandboxContext, Map<string, Anticipation | null>>();

function cacheOf(ctx: SandboxContext): Map<string, Anticipation | null> {
  let cache = caches.get(ctx);
  if (!cache) {
    const fresh = new Map<string, Anticipation | null>();
    ctx.onReset(() => fresh.clear());
    caches.set(ctx, fresh);
    cache = fresh;
  }
  return cache;
}

/** The account's anticipation, or null when it settles regularly. */
export async function anticipationOf(
  ctx: SandboxContext,
  accountNumber: string,
): Promise<Anticipation | null> {
  const cache = cacheOf(ctx);
  if (cache.has(accountNumber)) return cache.get(accountNumber)!;
  const row = await ctx.db
    .selectFrom('sandbox_state')
    .select('value')
    .where('key', '=', key(accountNumber))
    .executeTakeFirst();
  const value = row ? (JSON.parse(row.value) as Anticipation) : null;
  cache.set(accountNumber, value);
  return value;
}

export async function setAnticipation(
  ctx: SandboxContext,
  accountNumber: string,
  body: z.infer<typeof AnticipationBodySchema>,
): Promise<{ accountNumber: string; enabled: boolean; monthlyTaxPct: number }> {
  const monthlyTaxPct = body.monthlyTaxPct ?? DEFAULT_ANTICIPATION_TAX_PCT;
  if (body.enabled) {
    const value = JSON.stringify({ monthlyTaxPct } satisfies Anticipation);
    await ctx.db
      .insertInto('sandbox_state')
      .values({ key: key(accountNumber), value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  } else {
    await ctx.db.deleteFrom('sandbox_state').where('key', '=', key(accountNumber)).execute();
  }
  cacheOf(ctx).set(accountNumber, body.enabled ? { monthlyTaxPct } : null);
  return { accountNumber, enabled: body.enabled, monthlyTaxPct };
}
