import { z } from 'zod';
import { str } from './common';
import { CardBrandSchema } from './payments';

/** `GET /v1/cards/public-key`: PEM (SPKI) RSA public key. */
export const PublicKeyResponseSchema = z.object({ key: z.string().min(1) });
export type PublicKeyResponse = z.infer<typeof PublicKeyResponseSchema>;

/**
 * The card vault (DESIGN §5; the spec names it without a shape): `POST /v1/cards/vault`.
 * Either `encryptedCard` or the plain fields `number`, `securityCode`, `expirationMonth`,
 * `expirationYear`.
 */
export const VaultRequestSchema = z.object({
  cardInfo: z.object({
    encryptedCard: str(2048).min(1).optional(),
    number: z
      .string()
      .regex(/^\d{12,19}$/, { error: 'must be 12 to 19 digits' })
      .optional(),
    securityCode: z
      .string()
      .regex(/^\d{3,4}$/, { error: 'must be 3 or 4 digits' })
      .optional(),
    expirationMonth: z
      .string()
      .regex(/^\d{2}$/, { error: 'must be two digits' })
      .optional(),
    expirationYear: z
      .string()
      .regex(/^\d{2}$/, { error: 'must be two digits' })
      .optional(),
    cardholderName: str(30).min(1, { error: 'is required' }),
    brand: CardBrandSchema.optional(),
  }),
});
export type VaultRequest = z.infer<typeof VaultRequestSchema>;

export const VaultResponseSchema = z.object({ vaultId: z.string().max(36) });
export type VaultResponse = z.infer<typeof VaultResponseSchema>;
