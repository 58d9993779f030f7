import { ConsolePage } from './pages/console-page';
import { OrderPage } from './pages/order-page';
import { expectNoAxeViolations } from './support/axe';
import { CARDS, expect, test } from './fixtures';

interface SessionDetail {
  id: string;
  status: string;
  amount: number;
  origin: string;
}

test.describe('merchant side of the demo', () => {
  test.describe('with the console checked by axe', () => {
    // axe is injected as an inline script, which the storefront's policy rightly refuses.
    test.use({ bypassCSP: true });

    test('checkout creates the session server to server with the cart total, listed in the console', async ({
      storefront,
      stack,
      page,
    }) => {
      await storefront.goto();
      await storefront.addToCart('Camiseta de algodão');
      await storefront.addToCart('Camiseta de algodão');
      await storefront.openCart();
      await storefront.proceedToCheckout();
      const sessionId = await page.locator('card-checkout').getAttribute('data-session-id');
      expect(sessionId).toMatch(/^cs_/);
      // The page holds the client secret for the widget and never the merchant secret.
      await expect(page.locator('card-checkout')).toHaveAttribute(
        'session',
        new RegExp(`^${sessionId}_secret_`),
      );
      expect(await page.content()).not.toContain(stack.E2E_MERCHANT_SECRET);
      // The widget comes from the BFF as the content-hashed file, pinned by its SRI hash.
      const script = page.locator('script[type="module"][integrity]');
      await expect(script).toHaveAttribute('integrity', /^sha384-[A-Za-z0-9+/]+=*$/);
      await expect(script).toHaveAttribute(
        'src',
        new RegExp(`^${stack.E2E_BFF_URL}/widget/card-checkout\\.[0-9a-f]+\\.js$`),
      );
      await expect(script).toHaveAttribute('crossorigin', 'anonymous');

      const res = await page.request.get(`${stack.E2E_BFF_URL}/v1/checkout-sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${stack.E2E_MERCHANT_SECRET}` },
      });
      expect(res.status()).toBe(200);
      const detail = (await res.json()) as SessionDetail;
      expect(detail).toMatchObject({ status: 'open', amount: 15980, origin: stack.E2E_DEMO_URL });

      const merchantConsole = new ConsolePage(page, stack.E2E_DEMO_URL);
      await merchantConsole.goto();
      await expect(merchantConsole.status(sessionId!)).toHaveAttribute('data-status', 'open');
      await expect(merchantConsole.session(sessionId!)).toContainText('R$\u00a0159,80');
      await expectNoAxeViolations(page);

      // An unpaid order is not shown as paid, whatever the browser did.
      await page.goto(`${stack.E2E_DEMO_URL}/order/${sessionId}`);
      const order = new OrderPage(page);
      await expect(order.status).toHaveAttribute('data-status', 'open');
      await expect(order.status).toContainText('não aprovado');
    });
  });

  test('the amount posted by the browser is ignored: the server prices the cart', async ({
    storefront,
    stack,
    page,
  }) => {
    await storefront.goto();
    await storefront.addToCart('Fone de ouvido sem fio');
    await storefront.openCart();
    // A tampered form post, as a shopper with dev tools could send.
    await page.evaluate(() => {
      const form = document.querySelector<HTMLFormElement>('form[action="/checkout"]')!;
      for (const [name, value] of [
        ['amount', '1'],
        ['price', '1'],
        ['total', '1'],
      ]) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name!;
        input.value = value!;
        form.append(input);
      }
    });
    await storefront.proceedToCheckout();
    await expect(page.getByTestId('checkout-total')).toHaveText('R$\u00a0199,00');
    const sessionId = await page.locator('card-checkout').getAttribute('data-session-id');
    const res = await page.request.get(`${stack.E2E_BFF_URL}/v1/checkout-sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${stack.E2E_MERCHANT_SECRET}` },
    });
    expect(((await res.json()) as SessionDetail).amount).toBe(19900);

    // Nor can a browser create its own cheaper session: the merchant API wants the secret.
    const forged = await page.request.post(`${stack.E2E_BFF_URL}/v1/checkout-sessions`, {
      data: { amount: 1, origin: stack.E2E_DEMO_URL },
    });
    expect(forged.status()).toBe(401);
  });

  test('an unknown order is a 404 page, not a paid order', async ({ stack, page }) => {
    const res = await page.goto(`${stack.E2E_DEMO_URL}/order/cs_doesnotexist`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Não encontrado');
  });
});

test('a payment canceled at the gateway shows as canceled in the console (webhook)', async ({
  checkout,
  order,
  merchant,
  stack,
  page,
}) => {
  const sessionId = await checkout.sessionId();
  await checkout.payWith({ number: CARDS.frictionless }, 'debit');
  await order.expectPaid();
  const paymentId = (await merchant.session(sessionId)).attempts[0]!.paymentId!;

  const control = async (path: string, body: unknown) => {
    const res = await page.request.post(`${stack.E2E_SANDBOX_URL}/__sandbox${path}`, {
      data: body,
    });
    expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
    return (await res.json()) as { id: string };
  };
  const request = await control('/cancellation-requests', {
    paymentId,
    description: 'cliente desistiu',
  });
  await control(`/cancellation-requests/${request.id}/decide`, { status: 'APROVADO' });
  await control(`/cancellation-requests/${request.id}/decide`, { status: 'CANCELADO' });

  const merchantConsole = new ConsolePage(page, stack.E2E_DEMO_URL);
  await expect
    .poll(
      async () => {
        await merchantConsole.goto();
        return merchantConsole.session(sessionId).getByTestId('attempt-canceled').count();
      },
      { message: 'the console shows the cancellation', timeout: 20_000 },
    )
    .toBe(1);
});
