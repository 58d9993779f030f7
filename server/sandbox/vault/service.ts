import { randomUUID } from 'node:crypto';
import type { CardBrand } from '../../gateway/schemas/payments';
import type { VaultRequest } from '../../gateway/schemas/keys';
import type { ErrorItem } from '../../lib/http';
import { resetCache } from '../cache';
import type { SandboxClient } from '../clients';
import { findClient, type SandboxContext } from '../context';
import { recordAuthorization } from '../payments/authorize';
import { expiryValid } from '../payments/card';
import { applyOverride } from '../payments/outcomes';
import { resolveCard } from '../payments/resolve-card';
import { paymentsState } from '../payments/state';
import type { StoredPayment } from '../payments/store';
import {
  RETURN_DESCRIPTIONS,
  UNKNOWN_ERROR_DESCRIPTION,
  cardBehaviour,
  type CardBehaviour,
  type ReturnCode,
} from '../payments/test-cards';
import type { VaultTables } from './store';

export interface VaultEntry {
  vaultId: string;
  brand: CardBrand;
  maskedNumber: string;
  expMonth: string;
  expYear: string;
  holder: string;
}

type Row = VaultTables['card_vault'];

function toEntry(r: Row): VaultEntry {
  return {
    vaultId: r.vault_id,
    brand: r.brand,
    maskedNumber: `${r.first_six}*****${r.last_four}`,
    expMonth: r.exp_month,
    expYear: r.exp_year,
    holder: r.holder,
  };
}

/** `POST /v1/cards/vault`: checks the card like a payment does and keeps its facts. */
export async function vaultCard(
  ctx: SandboxContext,
  client: SandboxClient,
  body: VaultRequest,
): Promise<{ ok: true; vaultId: string } | { ok: false; items: ErrorItem[] }> {
  const card = await resolveCard(ctx, client.userName, body.cardInfo);
  if (!card.ok) return card;
  const behaviour = cardBehaviour(card.card.number)!;
  const vaultId = randomUUID();
  await ctx.db
    .insertInto('card_vault')
    .values({
      vault_id: vaultId,
      user_name: client.userName,
      brand: card.brand,
      first_six: card.card.number.slice(0, 6),
      last_four: card.card.number.slice(-4),
      exp_month: card.card.expirationMonth,
      exp_year: card.card.expirationYear,
      holder: body.cardInfo.cardholderName,
      three_ds: behaviour.threeDs,
      return_code: behaviour.returnCode,
      internal_error: behaviour.internalError ? 1 : 0,
      created_at: ctx.clock.now().toISOString(),
    })
    .execute();
  return { ok: true, vaultId };
}

/**
 * Vaulted rows by client and vault id: an entry never changes once written (a new card is a new
 * vaultId), and every recurring charge looks its card up here.
 */
const ROW_CACHE_SIZE = 20_000;

async function findRow(
  ctx: SandboxContext,
  userName: string,
  vaultId: string,
): Promise<Row | null> {
  const cache = resetCache<Row>(ctx, 'vault.rows', ROW_CACHE_SIZE);
  const key = `${userName}\n${vaultId}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const row = await ctx.db
    .selectFrom('card_vault')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .where('user_name', '=', userName)
    .executeTakeFirst();
  if (!row) return null;
  cache.set(key, row);
  return row;
}

/**
 * Loads the rows of many vaulted cards into the cache in one query per few hundred, so a
 * billing batch does not look its cards up one by one: with more subscriptions than the cache
 * holds, each cycle would otherwise miss on every card (measured: 227,000 single lookups for
 * a year of 30,000 subscriptions, against 780 batched ones).
 */
export async function prefetchVaultRows(
  ctx: SandboxContext,
  cards: readonly { userName: string; vaultId: string }[],
): Promise<void> {
  const cache = resetCache<Row>(ctx, 'vault.rows', ROW_CACHE_SIZE);
  const missing = [
    ...new Set(
      cards.filter((c) => !cache.get(`${c.userName}\n${c.vaultId}`)).map((c) => c.vaultId),
    ),
  ].slice(0, ROW_CACHE_SIZE / 2);
  const wanted = new Set(cards.map((c) => `${c.userName}\n${c.vaultId}`));
  for (let i = 0; i < missing.length; i += PREFETCH_CHUNK) {
    const rows = await ctx.db
      .selectFrom('card_vault')
      .selectAll()
      .where('vault_id', 'in', missing.slice(i, i + PREFETCH_CHUNK))
      .execute();
    for (const row of rows) {
      const key = `${row.user_name}\n${row.vault_id}`;
      if (wanted.has(key)) cache.set(key, row);
    }
  }
}

const PREFETCH_CHUNK = 500;

/** A client's vaulted card (masked), or null. */
export async function findVault(
  ctx: SandboxContext,
  userName: string,
  vaultId: string,
): Promise<VaultEntry | null> {
  const row = await findRow(ctx, userName, vaultId);
  return row ? toEntry(row) : null;
}

/** Every vaulted card (masked), newest first, for `GET /__sandbox/vault`. */
export async function listVault(
  ctx: SandboxContext,
): Promise<(VaultEntry & { userName: string; createdAt: string })[]> {
  const rows = await ctx.db
    .selectFrom('card_vault')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('vault_id')
    .execute();
  return rows.map((r) => ({ ...toEntry(r), userName: r.user_name, createdAt: r.created_at }));
}

/**
 * A client's vaulted card with the behaviour it was vaulted with (DESIGN §5 test cards); a
 * card past its expiry on the sandbox clock declines `54`. Null when the client has no such
 * vaultId. Payments with `cardInfo.numberToken` and recurrence billings both charge through it.
 */
export async function findVaultedCard(
  ctx: SandboxContext,
  userName: string,
  vaultId: string,
): Promise<{ entry: VaultEntry; behaviour: CardBehaviour } | null> {
  const row = await findRow(ctx, userName, vaultId);
  if (!row) return null;
  const behaviour: CardBehaviour = {
    brand: row.brand,
    threeDs: row.three_ds as CardBehaviour['threeDs'],
    returnCode: expiryValid(row.exp_month, row.exp_year, ctx.clock.now())
      ? (row.return_code as ReturnCode)
      : '54',
    ...(row.internal_error ? { internalError: true as const } : {}),
  };
  return { entry: toEntry(row), behaviour };
}

export type VaultChargeResult =
  | { ok: true; payment: StoredPayment }
  | {
      ok: false;
      reason: 'not_found' | 'declined' | 'error';
      returnCode?: string;
      description: string;
    };

/**
 * Charges a vaulted card (recurrence billings): the card's behaviour with any queued outcome
 * override; a card past its expiry on the sandbox clock declines `54`. Records the payment
 * (credit, avista, 1 installment) and, approved, emits `payment.approved`.
 */
export async function authorizeVaulted(
  ctx: SandboxContext,
  input: {
    userName: string;
    vaultId: string;
    amount: number;
    referenceTransaction?: string | undefined;
    billingId?: string | undefined;
  },
): Promise<VaultChargeResult> {
  const card = await findVaultedCard(ctx, input.userName, input.vaultId);
  const client = findClient(ctx, input.userName);
  if (!card || !client) {
    return { ok: false, reason: 'not_found', description: `vault ${input.vaultId} not found` };
  }
  const behaviour = applyOverride(card.behaviour, paymentsState(ctx).outcomes.take());
  if (behaviour.internalError) {
    return { ok: false, reason: 'error', description: UNKNOWN_ERROR_DESCRIPTION };
  }
  const payment = await recordAuthorization(ctx, {
    client,
    transactionType: 'credit',
    productType: 'avista',
    installments: 1,
    amount: input.amount,
    brand: card.entry.brand,
    maskedNumber: card.entry.maskedNumber,
    referenceTransaction: input.referenceTransaction ?? null,
    configSplit: null,
    billingId: input.billingId ?? null,
    returnCode: behaviour.returnCode,
  });
  if (payment.status !== 'approved') {
    return {
      ok: false,
      reason: 'declined',
      returnCode: payment.returnCode,
      description: RETURN_DESCRIPTIONS[behaviour.returnCode],
    };
  }
  return { ok: true, payment };
}
