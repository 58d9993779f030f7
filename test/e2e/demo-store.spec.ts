import { mkdir } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { CheckoutPage } from './pages/checkout-page';
import { StorefrontPage } from './pages/storefront-page';
import { expectNoAxeViolations } from './support/axe';
import { CARDS, expect, OTP, test } from './fixtures';

const SCREENSHOTS = 'test-results/screenshots';

/** What a shopper would see as a sideways scroll: the document wider than the viewport. */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, viewport } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
  expect(scroll, `horizontal overflow on ${page.url()}`).toBeLessThanOrEqual(viewport);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

for (const size of [
  { width: 1280, height: 800, name: 'desktop' },
  { width: 390, height: 844, name: 'phone' },
]) {
  test.describe(`the demo store at ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, bypassCSP: true });
    // Four pages and the frame through axe plus a payment, on a loaded two-core machine.
    test.setTimeout(120_000);

    test('every page: cart count, no sideways scroll, axe; the order page is a receipt', async ({
      page,
      stack,
      merchant,
    }) => {
      const store = new StorefrontPage(page, stack.E2E_DEMO_URL);
      await store.goto();
      await store.addToCart('Caneca de cerâmica');
      await store.addToCart('Caderno pautado');
      for (const path of ['/', '/cart', '/assinatura', '/console']) {
        await page.goto(stack.E2E_DEMO_URL + path);
        await expect(store.cartCount, `cart count on ${path}`).toHaveText('2');
        await expectNoHorizontalOverflow(page);
        await expectNoAxeViolations(page);
      }
      await page.goto(stack.E2E_DEMO_URL + '/cart');
      await store.proceedToCheckout();
      const checkout = new CheckoutPage(page);
      await checkout.waitUntilReady();
      await expect(store.cartCount).toHaveText('2');
      await expectNoHorizontalOverflow(page);
      await expectNoAxeViolations(page);
      const frame = page.frames().find((f) => f.url().includes('/checkout/frame'));
      expect(frame, 'the card frame').toBeTruthy();
      await expectNoAxeViolations(frame!);
      await screenshot(page, `checkout-${size.width}`);

      const sessionId = await checkout.sessionId();
      await checkout.payWith({ number: CARDS.frictionless }, 'debit');
      await expect(page).toHaveURL(/\/order\/cs_/);
      await expect(page.getByTestId('order-status')).toHaveAttribute('data-status', 'succeeded');
      await expect(page.getByTestId('order-item')).toHaveCount(2);
      await expect(page.getByTestId('order-items')).toContainText('Caneca de cerâmica');
      await expect(page.getByTestId('order-card')).toHaveText('Visa final 2701');
      await expect(page.getByTestId('order-method')).toHaveText('Débito');
      const session = await merchant.session(sessionId);
      const paid = session.attempts.find((a) => a.status === 'succeeded') as unknown as {
        authorizationCode: string;
      };
      expect(paid.authorizationCode).toBeTruthy();
      await expect(page.getByTestId('order-authorization')).toHaveText(paid.authorizationCode);
      // The paid cart is emptied: the header says so on the order page and after.
      await expect(store.cartCount).toHaveText('0');
      await expectNoHorizontalOverflow(page);
      await expectNoAxeViolations(page);
      await page.goto(stack.E2E_DEMO_URL + '/cart');
      await expect(page.getByText('Seu carrinho está vazio.')).toBeVisible();
    });
  });
}

test('credit in installments: the order page repeats brand, last four and the plan', async ({
  checkout,
  page,
}) => {
  await checkout.waitUntilReady();
  await checkout.chooseMethod('credit');
  await checkout.fillCard({ number: CARDS.mastercard });
  await checkout.chooseInstallments(2);
  await checkout.pay.click();
  await expect(page).toHaveURL(/\/order\/cs_/);
  await expect(page.getByTestId('order-card')).toHaveText('Mastercard final 2235');
  await expect(page.getByTestId('order-method')).toHaveText(
    /Crédito, 2x de R\$\s?[\d,]+ sem juros/,
  );
});

test('the challenge dialog (screenshot for docs/demo.md)', async ({ checkout, page }) => {
  await checkout.payIntoChallenge();
  await screenshot(page, 'challenge-1280');
  await checkout.challenge.submitOtp(OTP);
  await expect(page).toHaveURL(/\/order\/cs_/);
});

test('one cart, one charge: two tabs of the same cart pay one session once', async ({
  context,
  page,
  stack,
  merchant,
}) => {
  test.setTimeout(90_000);
  const store = new StorefrontPage(page, stack.E2E_DEMO_URL);
  await store.buy('Caderno pautado');
  const tabA = new CheckoutPage(page, await CheckoutPage.recordEvents(page));
  await page.reload();
  await tabA.waitUntilReady();

  const other = await context.newPage();
  const eventsB = await CheckoutPage.recordEvents(other);
  await other.goto(stack.E2E_DEMO_URL + '/cart');
  await new StorefrontPage(other, stack.E2E_DEMO_URL).proceedToCheckout();
  const tabB = new CheckoutPage(other, eventsB);
  await tabB.waitUntilReady();
  const sessionId = await tabA.sessionId();
  expect(await tabB.sessionId(), 'tab B reuses the open session').toBe(sessionId);

  await tabA.payWith({ number: CARDS.frictionless }, 'debit');
  await expect(page).toHaveURL(/\/order\/cs_/);
  await expect(store.cartCount).toHaveText('0');

  await tabB.payWith({ number: CARDS.mastercard }, 'debit');
  // Tab B is told the session's truth, success, and the store takes it to the order page.
  await tabB.waitForEvent('checkout-succeeded');
  expect(await tabB.events('checkout-failed')).toEqual([]);
  await expect(other).toHaveURL(/\/order\/cs_/);

  const session = await merchant.session(sessionId);
  expect(session.status).toBe('succeeded');
  expect(session.attempts.filter((a) => a.status === 'succeeded')).toHaveLength(1);
  expect(session.attempts.filter((a) => a.paymentId)).toHaveLength(1);
  // And a new "Finalizar compra" from tab B finds an empty cart: nothing to pay again.
  await other.goto(stack.E2E_DEMO_URL + '/cart');
  await expect(other.getByText('Seu carrinho está vazio.')).toBeVisible();
});

test('the subscription page follows Post/Redirect/Get: Back or reload never subscribe twice', async ({
  page,
  stack,
}) => {
  await page.goto(stack.E2E_DEMO_URL + '/assinatura');
  await page.getByRole('button', { name: 'Assinar' }).click();
  await expect(page).toHaveURL(/\/assinatura\/pagamento$/);
  const checkout = new CheckoutPage(page);
  await checkout.waitUntilReady();
  const sessionId = await checkout.sessionId();
  await expect(page.getByRole('link', { name: 'Voltar ao carrinho' })).toHaveCount(0);

  await page.reload();
  await checkout.waitUntilReady();
  expect(await checkout.sessionId()).toBe(sessionId);
  await page.goBack();
  await expect(page).toHaveURL(/\/assinatura$/);
  await page.goForward();
  await checkout.waitUntilReady();
  expect(await checkout.sessionId()).toBe(sessionId);
  // "Assinar" again while that session is open goes back to it.
  await page.goto(stack.E2E_DEMO_URL + '/assinatura');
  await page.getByRole('button', { name: 'Assinar' }).click();
  await checkout.waitUntilReady();
  expect(await checkout.sessionId()).toBe(sessionId);
});
