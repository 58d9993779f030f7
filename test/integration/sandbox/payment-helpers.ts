import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestSandbox } from '../../support/sandbox';

export const ANTI_FRAUD = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

export interface TestCard {
  number: string;
  securityCode?: string;
  expirationMonth?: string;
  expirationYear?: string;
}

/** Two digits of a year a few years ahead of `now`. */
export function futureYear(now: Date, ahead = 3): string {
  return String((now.getUTCFullYear() + ahead) % 100).padStart(2, '0');
}

/** Encrypts a card the way the frame does (DESIGN §3): RSA-OAEP SHA-256 over compact JSON. */
export function encryptCard(
  pem: string,
  card: TestCard,
  opts: { timestamp: number; nonce?: string },
): string {
  const plaintext = JSON.stringify({
    number: card.number,
    securityCode: card.securityCode ?? (card.number.startsWith('3') ? '1234' : '123'),
    expirationMonth: card.expirationMonth ?? '12',
    expirationYear: card.expirationYear ?? futureYear(new Date(opts.timestamp)),
    timestamp: opts.timestamp,
    nonce: opts.nonce ?? randomBytes(8).toString('hex'),
  });
  return publicEncrypt(
    { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plaintext, 'utf8'),
  ).toString('base64');
}

export async function publicKey(sb: TestSandbox, token?: string): Promise<string> {
  const res = await sb.call('GET', '/v1/cards/public-key', token ? { token } : {});
  expect(res.status).toBe(200);
  return (res.body as { key: string }).key;
}

/** Plain card fields of `cardInfo`. */
export function plainCardInfo(
  sb: TestSandbox,
  number: string,
  extra: Record<string, unknown> = {},
) {
  return {
    cardholderName: 'MARIA SILVA',
    number,
    securityCode: number.startsWith('34') || number.startsWith('37') ? '1234' : '123',
    expirationMonth: '12',
    expirationYear: futureYear(sb.clock.now()),
    ...extra,
  };
}

export function creditBody(
  cardInfo: Record<string, unknown>,
  payment: Record<string, unknown> = {},
) {
  return {
    payment: {
      transactionType: 'credit',
      amount: 10_000,
      productType: 'avista',
      installments: 1,
      ...payment,
    },
    referenceTransaction: 'order-1',
    sellerInfo: { codeAntiFraud: ANTI_FRAUD },
    cardInfo,
  };
}

export function debitBody(
  cardInfo: Record<string, unknown>,
  payment: Record<string, unknown> = {},
) {
  return {
    payment: {
      transactionType: 'debit',
      amount: 2_500,
      productType: 'debito',
      installments: 1,
      ...payment,
    },
    sellerInfo: {
      codeAntiFraud: ANTI_FRAUD,
      code3DS: 'sandbox-3ds-session',
      urlSite3DS: 'http://localhost:3000/checkout',
    },
    deviceInfo: {
      httpAcceptBrowserValue: 'text/html',
      httpAcceptContent: 'text/html',
      httpBrowserLanguage: 'pt-BR',
      httpBrowserJavaEnabled: 'N',
      httpBrowserJavaScriptEnabled: true,
      httpBrowserColorDepth: 24,
      httpBrowserScreenHeight: 900,
      httpBrowserScreenWidth: 1440,
      httpBrowserTimeDifference: 180,
      userAgentBrowserValue: 'vitest',
    },
    cardInfo,
  };
}

export type ErrorArray = { tag: string; description: string }[];

/** Asserts a 4xx error array whose first item names `tag`. */
export function expectFieldError(
  res: { status: number; body: unknown },
  status: number,
  tag: string,
): ErrorArray {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Array.isArray(res.body)).toBe(true);
  const items = res.body as ErrorArray;
  expect(items.map((i) => i.tag)).toContain(tag);
  return items;
}
