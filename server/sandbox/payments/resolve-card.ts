import type { CardBrand } from '../../gateway/schemas/payments';
import type { ErrorItem } from '../../lib/http';
import type { SandboxContext } from '../context';
import { openEncryptedCard } from '../keys/card-crypto';
import { checkCard, type PlainCard } from './card';

/** The card part of `cardInfo` every card-taking route accepts. */
export interface CardInput {
  encryptedCard?: string | undefined;
  number?: string | undefined;
  securityCode?: string | undefined;
  expirationMonth?: string | undefined;
  expirationYear?: string | undefined;
  numberToken?: string | undefined;
  brand?: CardBrand | undefined;
}

export type ResolvedCard =
  { ok: true; card: PlainCard; brand: CardBrand } | { ok: false; items: ErrorItem[] };

function refuse(tag: string, why: string): ResolvedCard {
  return { ok: false, items: [{ tag, description: `${tag}: ${why}` }] };
}

/**
 * The card of a request, from `encryptedCard` (decrypted, fresh, unseen nonce) or from the
 * plain fields (`number`, `securityCode`, `expirationMonth`, `expirationYear`, all required),
 * then checked (Luhn, brand, expiry on the sandbox clock, security code length).
 */
export async function resolveCard(
  ctx: SandboxContext,
  userName: string,
  info: CardInput,
): Promise<ResolvedCard> {
  let card: PlainCard;
  if (info.encryptedCard !== undefined) {
    if (info.number !== undefined) {
      return refuse('cardInfo.number', 'send either encryptedCard or number, not both');
    }
    const opened = await openEncryptedCard(ctx, userName, info.encryptedCard);
    if (!opened.ok) {
      return {
        ok: false,
        items: [{ tag: 'cardInfo.encryptedCard', description: opened.description }],
      };
    }
    card = opened.card;
    if (card.securityCode === undefined) {
      return refuse('cardInfo.securityCode', 'is required (missing from the encrypted card)');
    }
  } else if (info.number !== undefined) {
    for (const field of ['securityCode', 'expirationMonth', 'expirationYear'] as const) {
      if (info[field] === undefined) {
        return refuse(`cardInfo.${field}`, 'is required with a plain card number');
      }
    }
    card = {
      number: info.number,
      securityCode: info.securityCode,
      expirationMonth: info.expirationMonth!,
      expirationYear: info.expirationYear!,
    };
  } else if (info.numberToken !== undefined) {
    return refuse('cardInfo.numberToken', 'a card token cannot be used here; send encryptedCard');
  } else {
    return refuse('cardInfo.encryptedCard', 'is required (or the plain card fields)');
  }
  const check = checkCard(card, ctx.clock.now(), info.brand);
  if (!check.ok) return { ok: false, items: [{ tag: check.tag, description: check.description }] };
  return { ok: true, card, brand: check.brand };
}
