import type { CardBrand } from '../../gateway/schemas/payments';
import type { ErrorItem } from '../../lib/http';
import type { SandboxContext } from '../context';
import { findVaultedCard } from '../vault/service';
import { maskNumber, securityCodeLength } from './card';
import { resolveCard, type CardInput } from './resolve-card';
import { cardBehaviour, type CardBehaviour } from './test-cards';

/** What a payment needs to know of its card; never the number itself. */
export interface PaymentCard {
  brand: CardBrand;
  /** e.g. `400000*****2701`. */
  maskedNumber: string;
  /** The test-card behaviour, before any outcome override. */
  behaviour: CardBehaviour;
  /**
   * What proves validate gets the card that was authenticated: the number for a card sent
   * in full, `vault:<vaultId>` for a token. Held in memory only (challenges keep a salted hash).
   */
  identity: string;
}

export type ResolvedPaymentCard =
  { ok: true; card: PaymentCard } | { ok: false; items: ErrorItem[] };

function refuse(tag: string, why: string): ResolvedPaymentCard {
  return { ok: false, items: [{ tag, description: `${tag}: ${why}` }] };
}

/**
 * The card of a payment (credit, 3DS, validate). `cardInfo.numberToken` is a vaultId from
 * `POST /v1/cards/vault` (DESIGN §5): the vaulted card pays, its `securityCode` checked when
 * given. Otherwise `encryptedCard`, or the plain fields (a sandbox convenience), as
 * `resolveCard` reads them.
 */
export async function resolvePaymentCard(
  ctx: SandboxContext,
  userName: string,
  info: CardInput,
): Promise<ResolvedPaymentCard> {
  if (info.numberToken !== undefined) {
    if (info.encryptedCard !== undefined || info.number !== undefined) {
      return refuse(
        'cardInfo.numberToken',
        'send either numberToken or the card (encryptedCard or number), not both',
      );
    }
    const vaulted = await findVaultedCard(ctx, userName, info.numberToken);
    if (!vaulted) return refuse('cardInfo.numberToken', 'unknown card token (vaultId)');
    const { entry, behaviour } = vaulted;
    if (info.brand !== undefined && info.brand !== entry.brand) {
      return refuse('cardInfo.brand', `does not match the card token (${entry.brand})`);
    }
    if (info.securityCode !== undefined) {
      const len = securityCodeLength(entry.brand);
      if (!new RegExp(`^\\d{${len}}$`).test(info.securityCode)) {
        return refuse('cardInfo.securityCode', `must be ${len} digits for ${entry.brand}`);
      }
    }
    return {
      ok: true,
      card: {
        brand: entry.brand,
        maskedNumber: entry.maskedNumber,
        behaviour,
        identity: `vault:${entry.vaultId}`,
      },
    };
  }
  const resolved = await resolveCard(ctx, userName, info);
  if (!resolved.ok) return resolved;
  const { card, brand } = resolved;
  return {
    ok: true,
    card: {
      brand,
      maskedNumber: maskNumber(card.number),
      behaviour: cardBehaviour(card.number)!,
      identity: card.number,
    },
  };
}
