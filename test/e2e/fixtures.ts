import { test as base } from '@playwright/test';
import { stackEnv, type E2eStackEnv } from '../support/stack';
import { CheckoutPage } from './pages/checkout-page';
import { OrderPage } from './pages/order-page';
import { StorefrontPage } from './pages/storefront-page';

export interface MerchantAttempt {
  id: string;
  method: string;
  status: string;
  failureCode: string | null;
  paymentId: string | null;
  amount: number;
  installments: number;
}

export interface MerchantSession {
  id: string;
  status: string;
  amount: number;
  origin: string;
  failureCode: string | null;
  attempts: MerchantAttempt[];
}

/** The BFF's merchant API, server to server, as the demo's own server calls it. */
export class MerchantApi {
  constructor(private readonly stack: E2eStackEnv) {}

  async session(id: string): Promise<MerchantSession> {
    const res = await fetch(`${this.stack.E2E_BFF_URL}/v1/checkout-sessions/${id}`, {
      headers: { authorization: `Bearer ${this.stack.E2E_MERCHANT_SECRET}` },
    });
    if (res.status !== 200) throw new Error(`GET session ${id}: ${res.status}`);
    return (await res.json()) as MerchantSession;
  }
}

/** Specs import `test` from here: the running stack's addresses and the page objects. */
export const test = base.extend<{
  stack: E2eStackEnv;
  storefront: StorefrontPage;
  /** The payment page of a fresh one-item cart (R$ 49,90), with events recorded. */
  checkout: CheckoutPage;
  order: OrderPage;
  merchant: MerchantApi;
}>({
  // eslint-disable-next-line no-empty-pattern
  stack: async ({}, use) => {
    await use(stackEnv());
  },
  storefront: async ({ page, stack }, use) => {
    await use(new StorefrontPage(page, stack.E2E_DEMO_URL));
  },
  checkout: async ({ page, storefront }, use) => {
    const events = await CheckoutPage.recordEvents(page);
    await storefront.buy('Caneca de cerâmica');
    const checkout = new CheckoutPage(page, events);
    await checkout.waitUntilReady();
    await use(checkout);
  },
  order: async ({ page }, use) => {
    await use(new OrderPage(page));
  },
  merchant: async ({ stack }, use) => {
    await use(new MerchantApi(stack));
  },
});

export { expect } from '@playwright/test';

/** DESIGN §5 test cards. */
export const CARDS = {
  frictionless: '4000000000002701',
  challenge: '4000000000002503',
  challengeFails: '4000000000002370',
  frictionlessFails: '4000000000002925',
  declined: '4000000000000002',
  elo: '6505290000002000',
  amex: '340000000002708',
  hipercard: '6062825624254001',
  mastercard: '5200000000002235',
} as const;

export const OTP = '1234';
