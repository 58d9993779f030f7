import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import { createGatewayClient, type GatewayClientOptions } from '../../../server/gateway';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import type { TestSandbox } from '../../support/sandbox';

export const ANTI_FRAUD = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

/** A gateway client pointed at a test sandbox with its default credentials. */
export function sandboxClient(sb: TestSandbox, over: Partial<GatewayClientOptions> = {}) {
  return createGatewayClient({
    gatewayBaseUrl: sb.url,
    integrationBaseUrl: sb.url,
    credentials: {
      gateway: { userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password },
    },
    timeoutMs: 10_000,
    ...over,
  });
}

/** The calendar date of `at` in America/Sao_Paulo, as date filters take it (DESIGN §5). */
export function spToday(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** Two digits of a year a few years after `now`. */
export function futureYear(now: Date): string {
  return String((now.getUTCFullYear() + 3) % 100).padStart(2, '0');
}

/**
 * Encrypts a card as the frame does (DESIGN §3): RSA-OAEP with SHA-256 over the compact JSON
 * `{number, securityCode, expirationMonth, expirationYear, timestamp, nonce}`, base64.
 */
export function encryptCard(pem: string, number: string, now: Date): string {
  const plaintext = JSON.stringify({
    number,
    securityCode: number.startsWith('34') || number.startsWith('37') ? '1234' : '123',
    expirationMonth: '12',
    expirationYear: futureYear(now),
    timestamp: now.getTime(),
    nonce: randomBytes(8).toString('hex'),
  });
  return publicEncrypt(
    { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plaintext, 'utf8'),
  ).toString('base64');
}

export function creditBody(encryptedCard: string, amount = 10_000, installments = 1) {
  return {
    payment: {
      transactionType: 'credit' as const,
      amount,
      productType: installments > 1 ? ('lojista' as const) : ('avista' as const),
      installments,
    },
    referenceTransaction: 'order-1',
    sellerInfo: { codeAntiFraud: ANTI_FRAUD },
    cardInfo: { cardholderName: 'MARIA SILVA', encryptedCard },
  };
}

export const debitPayment = (amount = 2_500) => ({
  transactionType: 'debit' as const,
  amount,
  productType: 'debito' as const,
  installments: 1,
});

export const sellerInfo3ds = {
  codeAntiFraud: ANTI_FRAUD,
  code3DS: 'sandbox-3ds-session',
  urlSite3DS: 'http://localhost:3000/checkout',
};

export function debitBody(encryptedCard: string, amount = 2_500) {
  return {
    payment: debitPayment(amount),
    sellerInfo: sellerInfo3ds,
    deviceInfo: {
      httpAcceptBrowserValue: 'text/html',
      httpAcceptContent: 'text/html',
      httpBrowserLanguage: 'pt-BR',
      httpBrowserJavaEnabled: 'N' as const,
      httpBrowserJavaScriptEnabled: true,
      httpBrowserColorDepth: 24,
      httpBrowserScreenHeight: 900,
      httpBrowserScreenWidth: 1440,
      httpBrowserTimeDifference: 180,
      userAgentBrowserValue: 'vitest',
    },
    cardInfo: { cardholderName: 'MARIA SILVA', encryptedCard },
  };
}

async function postForm(url: string, fields: Record<string, string>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  if (res.status !== 200) throw new Error(`ACS ${url}: ${res.status}`);
  return res.text();
}

/** Plays the cardholder on the sandbox ACS with `otp`; returns the PaRes it answers. */
export async function answerChallenge(
  sb: TestSandbox,
  ch: { acsUrl?: string | null | undefined; pareq?: string | null | undefined },
  otp = '1234',
): Promise<string> {
  await postForm(ch.acsUrl!, { PaReq: ch.pareq!, MD: 'md-1', TermUrl: 'http://127.0.0.1:9/r' });
  const html = await postForm(`${sb.url}/acs/challenge/submit`, {
    PaReq: ch.pareq!,
    otp,
    action: 'submit',
  });
  const pares = /name="PaRes" value="([^"]*)"/.exec(html)?.[1];
  if (!pares) throw new Error('the ACS answered no PaRes');
  return pares;
}
