import { CARDS, OTP, expect, test } from './fixtures';

// Issue 10 §1: the store fulfils an order from the BFF's signed checkout_session.succeeded,
// not from the shopper's redirect. Here the shopper's tab never reaches the order page: the
// redirect is cut off and the tab is closed the moment the bank's challenge is answered.
test('the shopper closes the tab right after the challenge: the order is still fulfilled', async ({
  checkout,
  context,
  page,
  stack,
  merchant,
}) => {
  test.setTimeout(90_000);
  const sessionId = await checkout.sessionId();
  await page.route('**/order/**', (route) => route.abort());
  await checkout.payWith({ number: CARDS.challenge }, 'debit');
  await checkout.challenge.expectOpen();
  const completed = page.waitForResponse(
    (r) => r.url().includes('/checkout/api/challenge/complete') && r.request().method() === 'POST',
  );
  await checkout.challenge.submitOtp(OTP);
  await completed;
  await page.close();

  // The payment happened, once.
  const session = await merchant.session(sessionId);
  expect(session.status).toBe('succeeded');
  expect(session.attempts.filter((a) => a.status === 'succeeded')).toHaveLength(1);

  // The store learned it from the event: the cart is emptied (no page of ours was loaded since
  // the payment) and the order is fulfilled, for a tab the shopper opens later.
  const later = await context.newPage();
  await expect
    .poll(
      async () => {
        await later.goto(`${stack.E2E_DEMO_URL}/cart`);
        return later.getByText('Seu carrinho está vazio.').isVisible();
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await later.goto(`${stack.E2E_DEMO_URL}/order/${sessionId}`);
  await expect(later.getByTestId('order-fulfilment')).toHaveAttribute('data-fulfilled', 'true');
  // The console lists the event, delivered.
  await later.goto(`${stack.E2E_DEMO_URL}/console`);
  const row = later
    .getByTestId('event-row')
    .filter({ hasText: 'checkout_session.succeeded' })
    .filter({ hasText: sessionId });
  await expect(row.getByTestId('event-delivery')).toHaveAttribute('data-status', 'delivered');
});
