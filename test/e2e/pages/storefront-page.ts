import { expect, type Locator, type Page } from '@playwright/test';

/** The demo storefront: products, cart and the step into checkout. */
export class StorefrontPage {
  readonly products: Locator;
  readonly cartCount: Locator;
  readonly cartTotal: Locator;

  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {
    this.products = page.getByTestId('product');
    this.cartCount = page.getByTestId('cart-count');
    this.cartTotal = page.getByTestId('cart-total');
  }

  async goto(): Promise<void> {
    await this.page.goto(this.baseUrl + '/');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Produtos' })).toBeVisible();
  }

  product(name: string): Locator {
    return this.products.filter({ has: this.page.getByRole('heading', { name }) });
  }

  async addToCart(name: string): Promise<void> {
    await this.product(name)
      .getByRole('button', { name: /Adicionar/ })
      .click();
    await expect(this.page.getByRole('status')).toContainText(`${name} foi adicionado`);
  }

  async openCart(): Promise<void> {
    await this.page.getByRole('link', { name: /Carrinho/ }).click();
    await expect(this.page.getByRole('heading', { level: 1, name: 'Carrinho' })).toBeVisible();
  }

  async setQuantity(name: string, quantity: number): Promise<void> {
    await this.page.getByLabel(`Quantidade de ${name}`).fill(String(quantity));
    await this.page.getByRole('button', { name: `Atualizar ${name}` }).click();
  }

  /** From the cart, creates the checkout session on the demo server and opens the payment page. */
  async proceedToCheckout(): Promise<void> {
    await this.page.getByTestId('go-to-checkout').click();
    await expect(this.page.getByRole('heading', { level: 1, name: 'Pagamento' })).toBeVisible();
  }

  /** Adds one product and lands on the payment page. */
  async buy(name = 'Caneca de cerâmica'): Promise<void> {
    await this.goto();
    await this.addToCart(name);
    await this.openCart();
    await this.proceedToCheckout();
  }
}
