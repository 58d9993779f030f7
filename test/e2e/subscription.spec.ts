import type { Frame, Page } from '@playwright/test';
import { CheckoutPage } from './pages/checkout-page';
import { expectNoAxeViolations } from './support/axe';
import { CARDS, expect, test } from './fixtures';

/** The card form's document (the BFF frame), as a Frame for script injection. */
async function cardFrame(page: Page): Promise<Frame> {
  await expect
    .poll(() => page.frames().some((f) => f.url().includes('/checkout/frame')))
    .toBe(true);
  return page.frames().find((f) => f.url().includes('/checkout/frame'))!;
}

/** From the storefront's plan page, "Assinar" opens the payment page of a plan session. */
async function openPlanCheckout(page: Page, demoUrl: string): Promise<CheckoutPage> {
  const events = await CheckoutPage.recordEvents(page);
  await page.goto(demoUrl + '/');
  await page.getByRole('link', { name: 'Assinatura' }).click();
  const plan = page.getByTestId('plan');
  await expect(plan.getByRole('heading', { name: 'Clube do Café — mensal' })).toBeVisible();
  await expect(plan).toContainText('R$ 39,90');
  await plan.getByRole('button', { name: 'Assinar' }).click();
  const checkout = new CheckoutPage(page, events);
  await checkout.waitUntilReady();
  return checkout;
}

test.describe('subscription checkout', () => {
  test('subscribing to the demo plan: subscription Active and its first billing Paid in the console', async ({
    page,
    stack,
    order,
  }) => {
    const checkout = await openPlanCheckout(page, stack.E2E_DEMO_URL);
    const sessionId = await checkout.sessionId();

    // The frame shows the plan, its period and the consent line; credit only, no installments.
    await expect(checkout.frame.locator('[part="plan"]')).toContainText('Clube do Café — mensal');
    await expect(checkout.frame.locator('[part="plan"]')).toContainText(
      /R\$\s39,90 a cada 30 dias/,
    );
    await expect(checkout.frame.locator('#consent')).toHaveText(
      /Autorizo a cobrança recorrente de R\$\s39,90 a cada 30 dias até eu cancelar\./,
    );
    await expect(checkout.pay).toHaveText('Assinar');
    await expect(checkout.installments).toHaveCount(0);
    await expect(checkout.frame.locator('input[name="method"]')).toHaveCount(0);

    await checkout.fillCard({ number: CARDS.frictionless });
    await checkout.pay.click();

    const succeeded = await checkout.waitForEvent('checkout-succeeded');
    expect(succeeded.amount).toBe(3990);
    expect(succeeded.subscriptionId).toMatch(/^[0-9a-f-]{36}$/);
    // The first billing's charge: a payment id (TID) the merchant can look up like any other.
    expect(succeeded.paymentId).toMatch(/^\d{20}$/);
    const subscriptionId = succeeded.subscriptionId!;

    await order.expectPaid();
    await expect(page).toHaveURL(new RegExp(`/order/${sessionId}$`));
    await expect(page.getByTestId('order-subscription-id')).toHaveText(subscriptionId);
    await expect(order.amount).toHaveText(/R\$\s39,90/);
    // The first billing's evidence: its payment, authorization, billing and NSU (issue 9 §6).
    expect(succeeded.paymentId).toMatch(/^\d+$/);
    await expect(order.paymentId).toHaveText(succeeded.paymentId!);
    await expect(page.getByTestId('order-first-billing')).toContainText('Paid');
    await expect(page.getByTestId('order-first-billing')).toContainText(/R\$\s39,90/);

    await page.goto(stack.E2E_DEMO_URL + '/console');
    const section = page.getByTestId('console-assinaturas');
    await expect(section.getByRole('heading', { name: 'Assinaturas' })).toBeVisible();
    const row = section.locator(
      `[data-testid="subscription-row"][data-subscription-id="${subscriptionId}"]`,
    );
    await expect(row.getByTestId('subscription-status')).toHaveAttribute('data-status', 'Active');
    await expect(row.getByTestId('subscription-status')).toHaveText('Ativa');
    const billing = row.getByTestId('billing');
    await expect(billing).toHaveCount(1);
    await expect(billing).toHaveAttribute('data-status', 'Paid');
    await expect(billing).toContainText(/1ª: Paga ·\s+R\$\s39,90/);
  });

  test('a declined first billing fails in the frame and leaves no Active subscription', async ({
    page,
    stack,
    merchant,
  }) => {
    const checkout = await openPlanCheckout(page, stack.E2E_DEMO_URL);
    const sessionId = await checkout.sessionId();
    await checkout.fillCard({ number: '4000000000009995' });
    await checkout.pay.click();

    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.retryable).toBe(true);
    await expect(checkout.alert).toContainText('não foi autorizado');
    await expect(checkout.pay).toBeEnabled();

    const session = await merchant.session(sessionId);
    expect(session.status).toBe('open');
    const attempt = session.attempts[0] as unknown as { status: string; subscriptionId: string };
    expect(attempt.status).toBe('declined');
    const res = await fetch(`${stack.E2E_BFF_URL}/v1/subscriptions?limit=50`, {
      headers: { authorization: `Bearer ${stack.E2E_MERCHANT_SECRET}` },
    });
    const items = ((await res.json()) as { data: { id: string; status: string }[] }).data;
    expect(items.find((s) => s.id === attempt.subscriptionId)?.status).toBe('Canceled');
  });

  test.describe('accessibility', () => {
    // axe is injected as a script tag; the BFF frame's CSP would (rightly) refuse it.
    test.use({ bypassCSP: true });

    test('the plan page and the frame showing the plan pass axe', async ({ page, stack }) => {
      await page.goto(stack.E2E_DEMO_URL + '/assinatura');
      await expectNoAxeViolations(page);
      await page.getByRole('button', { name: 'Assinar' }).click();
      const checkout = new CheckoutPage(page);
      await checkout.waitUntilReady();
      await expectNoAxeViolations(page);
      await expectNoAxeViolations(await cardFrame(page));
    });
  });
});
