import type { CardBrand } from '../../gateway/schemas/payments';
import { detectBrand } from './card';

export type ThreeDsBehaviour =
  'frictionless' | 'challenge' | 'challenge_fail' | 'frictionless_fail' | 'none';

export type ReturnCode = '00' | '05' | '51' | '54' | 'N7' | '46';

/** What the sandbox does with a card (DESIGN §5 test-card table). */
export interface CardBehaviour {
  brand: CardBrand;
  threeDs: ThreeDsBehaviour;
  returnCode: ReturnCode;
  internalError?: true;
}

type Row = Omit<CardBehaviour, 'brand'>;

const TABLE: ReadonlyMap<string, Row> = new Map<string, Row>([
  ['4000000000002701', { threeDs: 'frictionless', returnCode: '00' }],
  ['4000000000002503', { threeDs: 'challenge', returnCode: '00' }],
  ['4000000000002370', { threeDs: 'challenge_fail', returnCode: '00' }],
  ['4000000000002925', { threeDs: 'frictionless_fail', returnCode: '00' }],
  ['5200000000002235', { threeDs: 'frictionless', returnCode: '00' }],
  ['5200000000002151', { threeDs: 'challenge', returnCode: '00' }],
  ['6505290000002000', { threeDs: 'frictionless', returnCode: '00' }],
  ['6062825624254001', { threeDs: 'frictionless', returnCode: '00' }],
  ['340000000002708', { threeDs: 'frictionless', returnCode: '00' }],
  ['4000000000000002', { threeDs: 'frictionless', returnCode: '05' }],
  ['4000000000009995', { threeDs: 'frictionless', returnCode: '51' }],
  ['4000000000000069', { threeDs: 'frictionless', returnCode: '54' }],
  ['4000000000000127', { threeDs: 'frictionless', returnCode: 'N7' }],
  ['4000000000000119', { threeDs: 'none', returnCode: '00', internalError: true }],
  ['4000000000000465', { threeDs: 'frictionless', returnCode: '46' }],
]);

/**
 * The behaviour of a card number: its row in the test-card table, or frictionless and
 * approved for any other number of a known brand. Null when the brand is unknown (such a card
 * is refused before any outcome applies). Luhn is not checked here.
 */
export function cardBehaviour(number: string): CardBehaviour | null {
  const brand = detectBrand(number);
  if (!brand) return null;
  const row = TABLE.get(number) ?? { threeDs: 'frictionless', returnCode: '00' };
  return { brand, ...row };
}

/** Description of each authorizer return code (the spec's table is "not shown"). */
export const RETURN_DESCRIPTIONS: Readonly<Record<ReturnCode, string>> = {
  '00': 'Transação autorizada',
  '05': 'Não autorizada',
  '51': 'Saldo insuficiente',
  '54': 'Cartão vencido',
  N7: 'Código de segurança inválido',
  '46': 'Cartão cancelado',
};

export const RETURN_CODES = Object.keys(RETURN_DESCRIPTIONS) as ReturnCode[];

/** The spec's internal-error body description. */
export const UNKNOWN_ERROR_DESCRIPTION =
  'The command could not be executed because of an unknown error';
