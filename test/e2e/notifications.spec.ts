import { ConsolePage } from './pages/console-page';
import { expectNoAxeViolations } from './support/axe';
import { CARDS, expect, test } from './fixtures';

// axe is injected as an inline script, which the storefront's policy (script-src 'self' and
// the BFF) rightly refuses.
test.use({ bypassCSP: true });

test('the open console shows the gateway notification of a payment as it arrives, without reloading', async ({
  checkout,
  order,
  stack,
  context,
}) => {
  const sessionId = await checkout.sessionId();
  // The console is open in another tab before the payment happens.
  const consoleTab = await context.newPage();
  const merchantConsole = new ConsolePage(consoleTab, stack.E2E_DEMO_URL);
  await merchantConsole.goto();
  await expect(merchantConsole.notifications).toBeVisible();
  await expect(merchantConsole.notification(sessionId, 'Authorized')).toHaveCount(0);
  let navigations = 0;
  consoleTab.on('framenavigated', (frame) => {
    if (frame === consoleTab.mainFrame()) navigations += 1;
  });

  await checkout.payWith({ number: CARDS.frictionless }, 'debit');
  await order.expectPaid();

  // The sandbox notifies the BFF within a second; the console polls every 2 s.
  const row = merchantConsole.notification(sessionId, 'Authorized');
  await expect(row).toBeVisible({ timeout: 15_000 });
  await expect(row.locator('[data-field="status"]')).toHaveAttribute('data-status', 'processed');
  await expect(row).toContainText('TransactionStatus');
  await expect(merchantConsole.notificationsStatus).toHaveAttribute('aria-live', 'polite');
  await expect(merchantConsole.notificationsStatus).toContainText(/notificaç/);
  expect(navigations, 'the console tab was not reloaded').toBe(0);

  // The browser gets notifications from the demo server, never the merchant secret.
  const json = await consoleTab.request.get(`${stack.E2E_DEMO_URL}/console/notifications.json`);
  expect(json.status()).toBe(200);
  const text = await json.text();
  expect(text).toContain(sessionId);
  expect(text).not.toContain(stack.E2E_MERCHANT_SECRET);
  expect(await consoleTab.content()).not.toContain(stack.E2E_MERCHANT_SECRET);
  await expectNoAxeViolations(consoleTab);

  // A fresh load renders the same row on the server (works without the script too).
  await merchantConsole.goto();
  await expect(merchantConsole.notification(sessionId, 'Authorized')).toHaveCount(1);
});
