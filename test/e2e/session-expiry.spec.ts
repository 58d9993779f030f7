import { CARDS, expect, test } from './fixtures';
import { CheckoutPage, futureExpiry } from './pages/checkout-page';

// A real minute of waiting recorded into a trace made the context's teardown overrun the
// test's budget on a loaded machine; the test passes in about a minute without one.
test.use({ trace: 'off' });

test.describe('the session expiry', () => {
  test('a notice before it ends; what was typed survives into the new session', async ({
    page,
    storefront,
    stack,
    merchant,
  }) => {
    test.setTimeout(300_000);
    // This page's session lives one minute (the shortest the BFF allows), so its notice shows
    // at once and it expires during the test; the demo renews it as it does any other.
    const created = await fetch(`${stack.E2E_BFF_URL}/v1/checkout-sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.E2E_MERCHANT_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        amount: 4990,
        origin: new URL(stack.E2E_DEMO_URL).origin,
        maxInstallments: 6,
        expiresInSeconds: 60,
      }),
    });
    const short = (await created.json()) as { id: string; clientSecret: string };
    const events = await CheckoutPage.recordEvents(page);
    await storefront.buy('Caneca de cerâmica');
    const checkout = new CheckoutPage(page, events);
    await checkout.waitUntilReady();
    // The page's element takes the short session (as a merchant page may set it).
    await checkout.host.evaluate((el, s) => {
      (el as HTMLElement).dataset.sessionId = s.id;
      el.setAttribute('session', s.clientSecret);
    }, short);
    await expect(checkout.expiryNotice).toBeVisible();
    await checkout.waitUntilReady();
    expect(await checkout.sessionId()).toBe(short.id);

    await expect(checkout.expiryNotice).toHaveText(/Esta sessão de pagamento expira em 1 minuto/);
    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: CARDS.frictionless, name: 'ANA EXPIRADA' });

    // The session ends; the page renews it and the form comes back with what was typed.
    await expect
      .poll(async () => (await checkout.events('checkout-failed')).map((e) => e.code), {
        timeout: 100_000,
      })
      .toEqual(['session_expired']);
    await expect.poll(() => checkout.sessionId(), { timeout: 30_000 }).not.toBe(short.id);
    await expect(checkout.cardNumber).toHaveValue('4000 0000 0000 2701', { timeout: 30_000 });
    await expect(checkout.cardholderName).toHaveValue('ANA EXPIRADA');
    await expect(checkout.expiry).toHaveValue(futureExpiry());
    await expect(checkout.expiryNotice).toHaveCount(0);
    await expect(checkout.alert).toBeEmpty();

    const renewed = await checkout.sessionId();
    await checkout.pay.click();
    await checkout.waitForEvent('checkout-succeeded');
    expect((await merchant.session(renewed)).status).toBe('succeeded');
    expect((await merchant.session(short.id)).status).toBe('expired');
  });
});
