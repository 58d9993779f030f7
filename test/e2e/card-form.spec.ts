import { CARDS, expect, test } from './fixtures';
import { saveScreenshot } from './support/screenshots';
import { CheckoutPage } from './pages/checkout-page';

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
    // The marks use the symbols the frame page brought (no sprite file), and are drawn.
    await expect(mark.locator('use')).toHaveAttribute('href', '#elo');
    await expect(checkout.frame.locator('svg.sprite symbol#elo')).toHaveCount(1);
    // A `<use>` whose symbol did not resolve has an empty box.
    const drawn = await mark.locator('use').evaluate((u) => (u as SVGUseElement).getBBox().width);
    expect(drawn).toBe(32);
  });

  test('the session is asked for before the frame bundle arrives; the fields do not wait for it', async ({
    page,
    storefront,
  }) => {
    const order: string[] = [];
    let asked!: () => void;
    const sessionAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The frame page's inlined boot asks for the session as the page is parsed: the bundle is
    // held until then (at most 5 s, so a frame without the boot fails here, not by timeout).
    await page.route(/\/frame\/card-form\.[0-9a-f]{10}\.js$/, async (route) => {
      await Promise.race([sessionAsked, new Promise((r) => setTimeout(r, 5_000))]);
      order.push('bundle');
      await route.continue();
    });
    await page.route('**/checkout/api/session', async (route) => {
      order.push('session');
      asked();
      await released;
      await route.continue();
    });
    await storefront.buy('Caneca de cerâmica');
    const checkout = new CheckoutPage(page);
    // The session is held: the fields are drawn anyway, the pay button waits for it.
    await expect(checkout.cardNumber).toBeVisible();
    await expect(checkout.pay).toBeDisabled();
    await expect(checkout.pay).toHaveText('Carregando…');
    expect(order).toEqual(['session', 'bundle']);
    release();
    await checkout.waitUntilReady();
    await expect(checkout.pay).toHaveText('Pagar R$ 49,90');
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
