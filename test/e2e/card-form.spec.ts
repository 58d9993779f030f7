import { CARDS, expect, test } from './fixtures';
import { CheckoutPage, futureExpiry } from './pages/checkout-page';
import { saveScreenshot } from './support/screenshots';

test.describe('the card form', () => {
  // A payment (two, across tabs) and a bank visit per test: room for a loaded two-core machine.
  test.describe.configure({ timeout: 90_000 });

  test('accepted brands are named, and the detected brand is marked in the number field', async ({
    checkout,
  }) => {
    await checkout.page.setViewportSize({ width: 1280, height: 800 });
    const marks = checkout.acceptedBrands.getByRole('img');
    await expect(marks).toHaveCount(5);
    for (const name of ['Visa', 'Mastercard', 'American Express', 'Elo', 'Hipercard']) {
      await expect(checkout.acceptedBrands.getByRole('img', { name })).toBeVisible();
    }
    await checkout.cardNumber.fill(CARDS.elo);
    const mark = checkout.frame.getByRole('img', { name: 'Bandeira: Elo' });
    await expect(mark).toBeVisible();
    await saveScreenshot(checkout.page, 'checkout-1280x800');
    await expect(mark).toHaveAttribute('data-brand', 'elo');
    // The marks are drawn from the BFF's sprite, which the frame really loads.
    const href = await mark.locator('use').getAttribute('href');
    expect(href).toMatch(/^\/checkout\/assets\/brands\.[0-9a-f]{10}\.svg#elo$/);
    const frameUrl = checkout.page
      .frames()
      .find((f) => f.url().includes('/checkout/frame'))!
      .url();
    const fromBff = await checkout.page.request.get(new URL(href!, frameUrl).href);
    expect(fromBff.status()).toBe(200);
    expect(await fromBff.text()).toContain('<symbol id="elo"');
  });

  test('placeholders and help: card number, MM/AA without a repeating hint, CVV help', async ({
    checkout,
  }) => {
    await expect(checkout.cardNumber).toHaveAttribute('placeholder', '1234 1234 1234 1234');
    await expect(checkout.expiry).toHaveAttribute('placeholder', 'MM/AA');
    await expect(checkout.frame.locator('#expiry-hint')).toHaveCount(0);
    await expect(checkout.frame.locator('#securityCode-hint')).toHaveText(
      '3 dígitos no verso do cartão',
    );
    await checkout.chooseMethod('credit');
    await checkout.cardNumber.fill(CARDS.amex);
    await expect(checkout.frame.locator('#securityCode-hint')).toHaveText(
      '4 dígitos na frente do cartão',
    );
  });

  test('typing the expiry: 13 never appears, 122030 gives 12/30, then on to the CVV', async ({
    checkout,
  }) => {
    await checkout.expiry.click();
    await checkout.page.keyboard.type('13');
    await expect(checkout.expiry).toHaveValue('1');
    await checkout.expiry.fill('');
    const seen: string[] = [];
    for (const key of '122030') {
      await checkout.page.keyboard.type(key);
      seen.push(await checkout.expiry.inputValue());
    }
    expect(seen.at(-1)).toBe('12/30');
    expect(seen.some((v) => /^1[3-9]|^00/.test(v))).toBe(false);
    // A complete, valid expiry moves the focus to the security code.
    await expect.poll(() => checkout.focusedInFrame()).toBe('securityCode');
  });

  test('a complete, valid card number moves on to the name; an invalid one does not', async ({
    checkout,
  }) => {
    await checkout.cardNumber.click();
    await checkout.page.keyboard.type('4000000000002702');
    await expect.poll(() => checkout.focusedInFrame()).toBe('cardNumber');
    await checkout.cardNumber.fill('');
    await checkout.page.keyboard.type(CARDS.frictionless);
    await expect.poll(() => checkout.focusedInFrame()).toBe('cardholderName');
  });

  test('installments say what they cost, interest-free, with the total where it differs', async ({
    checkout,
  }) => {
    await checkout.chooseMethod('credit');
    const options = (await checkout.installments.locator('option').allTextContents()).map((t) =>
      t.trim().replaceAll('\u00a0', ' '),
    );
    expect(options).toEqual([
      '1x de R$ 49,90 à vista',
      '2x de R$ 24,95 sem juros',
      '3x de R$ 16,63 sem juros (total R$ 49,90)',
      '4x de R$ 12,47 sem juros (total R$ 49,90)',
      '5x de R$ 9,98 sem juros',
      '6x de R$ 8,31 sem juros (total R$ 49,90)',
    ]);
  });

  test('while paying: a spinner, every field disabled, no link leaving the page', async ({
    checkout,
    order,
    page,
  }) => {
    // Hold the BFF's answer (the payment itself goes through) while the page is inspected.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/checkout/api/pay', async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await expect(checkout.spinner).toBeVisible();
    await expect(checkout.pay).toBeDisabled();
    await expect(checkout.pay).toHaveText(/Processando pagamento/);
    for (const field of [
      checkout.cardNumber,
      checkout.cardholderName,
      checkout.expiry,
      checkout.securityCode,
    ]) {
      await expect(field).toBeDisabled();
    }
    await expect(checkout.frame.locator('input[name="method"]').first()).toBeDisabled();
    // Every link of the merchant page is inert meanwhile (the skip link stays in the page).
    await expect(page.locator('a[href]:not(.skip)')).toHaveCount(0);
    await expect(page.getByText('Voltar ao carrinho')).toHaveAttribute('aria-disabled', 'true');
    release();
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
  });

  test('a decline is told once, in the frame, as an error; the links come back', async ({
    checkout,
    page,
  }) => {
    await checkout.payWith({ number: CARDS.declined }, 'credit');
    await checkout.waitForEvent('checkout-failed');
    await checkout.expectFailureToldOnce(
      'O pagamento não foi autorizado. Tente outro cartão. Restam 2 tentativas.',
    );
    await expect(checkout.alert).toHaveCount(1);
    await expect(page.getByRole('link', { name: 'Voltar ao carrinho' })).toHaveAttribute(
      'href',
      '/cart',
    );
  });
});

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
