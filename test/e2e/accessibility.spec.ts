import type { Frame, Page } from '@playwright/test';
import { ConsolePage } from './pages/console-page';
import { expectNoAxeViolations } from './support/axe';
import { saveScreenshot } from './support/screenshots';
import { CARDS, expect, test } from './fixtures';

/** The card form's document (the BFF frame), as a Frame for script injection. */
async function cardFrame(page: Page): Promise<Frame> {
  await expect
    .poll(() => page.frames().some((f) => f.url().includes('/checkout/frame')))
    .toBe(true);
  return page.frames().find((f) => f.url().includes('/checkout/frame'))!;
}

/** `name` (or test id) of the element focused inside the frame, through shadow roots. */
async function focusedInFrame(frame: Frame): Promise<string | null> {
  return frame.evaluate(() => {
    if (!document.hasFocus()) return null;
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body) return null;
    return el.getAttribute('name') ?? el.getAttribute('data-testid') ?? el.tagName.toLowerCase();
  });
}

async function tabTo(page: Page, frame: Frame, name: string, max = 25): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await focusedInFrame(frame)) === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${name} (focus: ${await focusedInFrame(frame)})`);
}

test.describe('accessibility', () => {
  // axe is injected as a script tag; the BFF frame's CSP would (rightly) refuse it.
  test.use({ bypassCSP: true });
  // Several axe runs and a payment per test: on a loaded two-core machine one axe run alone
  // can take seconds, so the budget is generous (never a timing assertion).
  test.describe.configure({ timeout: 120_000 });

  test('the payment page, the card frame, the order page and the console pass axe', async ({
    checkout,
    order,
    stack,
    page,
  }) => {
    await expectNoAxeViolations(page);
    const frame = await cardFrame(page);
    await expectNoAxeViolations(frame);

    // With inline errors shown.
    await checkout.pay.click();
    await expect(checkout.fieldError('cardNumber')).not.toBeEmpty();
    await expectNoAxeViolations(frame);

    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await order.expectPaid();
    await expectNoAxeViolations(page);

    const merchantConsole = new ConsolePage(page, stack.E2E_DEMO_URL);
    await merchantConsole.goto();
    await expectNoAxeViolations(page);
  });

  test('the card frame at phone size, with marks, a failure and the bank dialog, passes axe', async ({
    checkout,
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const frame = await cardFrame(page);
    await checkout.chooseMethod('credit');
    await checkout.cardNumber.fill(CARDS.elo);
    await expect(checkout.frame.getByRole('img', { name: 'Bandeira: Elo' })).toBeVisible();
    await expectNoAxeViolations(frame);
    await saveScreenshot(page, 'checkout-390x844');

    await checkout.fillCard({ number: CARDS.declined });
    await checkout.pay.click();
    await checkout.waitForEvent('checkout-failed');
    await expect(checkout.alert).toContainText('não foi autorizado');
    await expectNoAxeViolations(frame);

    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: CARDS.challenge });
    await checkout.pay.click();
    await checkout.challenge.expectOpen();
    await checkout.challenge.acsFrame();
    await saveScreenshot(page, 'challenge-390x844', false);
    await expectNoAxeViolations(page);
    await expectNoAxeViolations(frame);
  });

  test('the whole purchase works with the keyboard only', async ({ storefront, page, order }) => {
    await storefront.goto();
    // Storefront: Tab to the first product's button and press Enter.
    const addButton = storefront
      .product('Caderno pautado')
      .getByRole('button', { name: /Adicionar/ });
    for (
      let i = 0;
      i < 20 && !(await addButton.evaluate((b) => b === document.activeElement));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await expect(addButton).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(storefront.cartCount).toHaveText('1');

    const cartLink = page.getByRole('link', { name: /Carrinho/ });
    for (
      let i = 0;
      i < 20 && !(await cartLink.evaluate((a) => a === document.activeElement));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Carrinho' })).toBeVisible();
    const go = page.getByTestId('go-to-checkout');
    for (let i = 0; i < 30 && !(await go.evaluate((b) => b === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Pagamento' })).toBeVisible();

    // Into the card frame with Tab; the method by arrow keys; typing; Enter pays.
    const frame = await cardFrame(page);
    await expect(frame.locator('[name="cardNumber"]')).toBeVisible();
    await tabTo(page, frame, 'method');
    const debit = frame.locator('input[name="method"][value="debit"]');
    for (let i = 0; i < 3 && !(await debit.isChecked()); i++)
      await page.keyboard.press('ArrowRight');
    await expect(debit).toBeChecked();

    await tabTo(page, frame, 'cardNumber');
    await page.keyboard.type(CARDS.frictionless);
    await tabTo(page, frame, 'cardholderName');
    await page.keyboard.type('ANA TECLADO');
    await tabTo(page, frame, 'expiry');
    await page.keyboard.type(`12${String((new Date().getFullYear() + 2) % 100).padStart(2, '0')}`);
    await tabTo(page, frame, 'securityCode');
    await page.keyboard.type('123');
    await tabTo(page, frame, 'pay');
    await page.keyboard.press('Enter');

    await order.expectPaid();
  });

  test('a refusal paid with Enter leaves the focus in the form, not lost on the page', async ({
    checkout,
    page,
  }) => {
    const frame = await cardFrame(page);
    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: CARDS.declined });
    await tabTo(page, frame, 'pay');
    await page.keyboard.press('Enter');
    await checkout.waitForEvent('checkout-failed');
    await expect(checkout.alert).toContainText('não foi autorizado');
    // Where the shopper left it (as after the bank's dialog), not on the frame's body.
    await expect.poll(() => focusedInFrame(frame)).toBe('pay');
  });

  test('a bank challenge can be answered with the keyboard', async ({ checkout, order, page }) => {
    const frame = await cardFrame(page);
    await checkout.chooseMethod('debit');
    await checkout.fillCard({ number: CARDS.challenge });
    await tabTo(page, frame, 'pay');
    await page.keyboard.press('Enter');
    await checkout.challenge.expectOpen();

    // The modal dialog holds the focus; Tab reaches the bank's OTP field inside it.
    const acs = await checkout.challenge.acsFrame();
    const otp = acs.locator('#otp');
    for (
      let i = 0;
      i < 10 && !(await otp.evaluate((el) => el === document.activeElement && document.hasFocus()));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await expect(otp).toBeFocused();
    await page.keyboard.type('1234');
    await page.keyboard.press('Enter');
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
  });

  test('Escape closes the challenge dialog and cancels the attempt', async ({ checkout }) => {
    await checkout.payIntoChallenge();
    await checkout.challenge.closeButton.focus();
    await checkout.page.keyboard.press('Escape');
    await checkout.challenge.expectClosed();
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.code).toBe('challenge_canceled');
  });
});
