import { expectNoAxeViolations } from './support/axe';
import { expect, test } from './fixtures';

test.describe('storefront', () => {
  test('lists products in reais and keeps a cart priced by the server', async ({
    storefront,
    page,
  }) => {
    await storefront.goto();
    await expect(storefront.products).toHaveCount(4);
    await expect(storefront.product('Caneca de cerâmica')).toContainText('R$ 49,90');
    await expect(storefront.cartCount).toHaveText('0');

    await storefront.addToCart('Caneca de cerâmica');
    await storefront.addToCart('Caderno pautado');
    await storefront.addToCart('Caderno pautado');
    await expect(storefront.cartCount).toHaveText('3');

    await storefront.openCart();
    await expect(page.getByTestId('cart-line')).toHaveCount(2);
    await expect(storefront.cartTotal).toHaveText('R$ 98,90'.replace(' ', '\u00a0'));

    await storefront.setQuantity('Caderno pautado', 0);
    await expect(page.getByTestId('cart-line')).toHaveCount(1);
    await expect(storefront.cartTotal).toHaveText('R$ 49,90'.replace(' ', '\u00a0'));
  });

  test.describe('accessibility', () => {
    // axe is injected as an inline script, which the storefront's policy rightly refuses.
    test.use({ bypassCSP: true });

    test('the storefront and the cart pass axe', async ({ storefront, page }) => {
      await storefront.goto();
      await expectNoAxeViolations(page);
      await storefront.addToCart('Fone de ouvido sem fio');
      await storefront.openCart();
      await expectNoAxeViolations(page);
    });
  });
});
