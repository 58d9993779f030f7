import { expect, type Locator, type Page } from '@playwright/test';

/** The order result page: the demo server asks the BFF for the session's real status. */
export class OrderPage {
  readonly status: Locator;
  readonly amount: Locator;
  readonly method: Locator;
  readonly paymentId: Locator;

  constructor(readonly page: Page) {
    this.status = page.getByTestId('order-status');
    this.amount = page.getByTestId('order-amount');
    this.method = page.getByTestId('order-method');
    this.paymentId = page.getByTestId('order-payment-id');
  }

  async expectPaid(): Promise<void> {
    await expect(this.page).toHaveURL(/\/order\/cs_/);
    await expect(this.status).toHaveAttribute('data-status', 'succeeded');
    await expect(this.status).toHaveText('Pagamento aprovado');
  }
}
