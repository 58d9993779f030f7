import type { Route } from '@playwright/test';
import { CARDS, OTP, expect, test } from './fixtures';
import { CheckoutPage } from './pages/checkout-page';
import { OrderPage } from './pages/order-page';

/** Lets the request reach the BFF (and the payment happen), then loses the answer. */
async function dropAnswer(route: Route): Promise<void> {
  await route.fetch();
  await route.abort('connectionreset');
}

/** Lets the request through, then answers the frame as a failing proxy would. */
async function answer502(route: Route): Promise<void> {
  await route.fetch();
  await route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' });
}

test.describe('the shopper is told the truth (issue 9 §4)', () => {
  // A payment (two, across tabs) and a bank visit per test: room for a loaded two-core machine.
  test.describe.configure({ timeout: 90_000 });

  for (const [name, lose] of [
    ['dropped', dropAnswer],
    ['answered 502 by a proxy', answer502],
  ] as const) {
    test(`a pay whose answer is ${name} ends in checkout-succeeded, never an error`, async ({
      checkout,
      order,
      merchant,
      page,
    }) => {
      const sessionId = await checkout.sessionId();
      await page.route('**/checkout/api/pay', lose);
      await checkout.payWith({ number: CARDS.frictionless }, 'debit');
      const succeeded = await checkout.waitForEvent('checkout-succeeded');
      expect(succeeded.paymentId).toBeTruthy();
      await order.expectPaid();
      expect(await checkout.events('checkout-failed')).toEqual([]);
      const session = await merchant.session(sessionId);
      expect(session.attempts.map((a) => a.status)).toEqual(['succeeded']);
    });
  }

  test('a pay that reaches the BFF late is sent again under its key: one payment, no retry offered', async ({
    checkout,
    order,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    const keys: string[] = [];
    let late: Promise<unknown> | null = null;
    await page.route('**/checkout/api/pay', async (route) => {
      const request = route.request();
      const headers = await request.allHeaders();
      keys.push(headers['idempotency-key'] ?? '');
      if (late) return route.continue();
      // The frame loses the connection at once; the request itself reaches the BFF seconds
      // later (a slow uplink, a proxy's retry): meanwhile the session still reads open.
      const body = request.postData() ?? '';
      late = new Promise((r) => setTimeout(r, 3_000)).then(() =>
        page.request.post(request.url(), { headers, data: body }),
      );
      await route.abort('connectionreset');
    });
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    const succeeded = await checkout.waitForEvent('checkout-succeeded');
    expect(succeeded.paymentId).toBeTruthy();
    await late;
    await order.expectPaid();
    // Never "try again" while the first request could still charge; the same key each time.
    expect(await checkout.events('checkout-failed')).toEqual([]);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    const session = await merchant.session(sessionId);
    expect(session.attempts.map((a) => a.status)).toEqual(['succeeded']);
  });

  test('a frame rebuilt after the payment does not tell the page of it twice', async ({
    checkout,
    page,
  }) => {
    // This page stays on the checkout after the payment (the demo would open the order page):
    // the event is recorded, then kept from the demo's own listener.
    await page.evaluate(() =>
      document.addEventListener('checkout-succeeded', (e) => e.stopImmediatePropagation(), true),
    );
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await checkout.waitForEvent('checkout-succeeded');
    const readies = (await checkout.events('checkout-ready')).length;
    // The page changes an attribute the frame is built from: a new frame reads the paid
    // session and says so; the page has heard it already.
    await checkout.host.evaluate((el) => el.setAttribute('submit-label', 'Pagar agora'));
    await expect
      .poll(async () => (await checkout.events('checkout-ready')).length)
      .toBeGreaterThan(readies);
    await expect(checkout.frame.getByText('Pagamento aprovado').first()).toBeVisible();
    expect(await checkout.events('checkout-succeeded')).toHaveLength(1);
  });

  test('a challenge whose complete answer is dropped ends in checkout-succeeded', async ({
    checkout,
    order,
    page,
  }) => {
    await page.route('**/checkout/api/challenge/complete', dropAnswer);
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    expect(await checkout.events('checkout-failed')).toEqual([]);
  });

  test('an outcome not known yet says "Estamos confirmando…", offers no retry, keeps reading', async ({
    checkout,
    order,
    page,
  }) => {
    await page.route('**/checkout/api/pay', dropAnswer);
    // The BFF answers `pending` while it does not know (the contract of issue 9 §4): the
    // first reads after the lost answer say so; later ones tell the outcome.
    let pendingReads = 3;
    await page.route('**/checkout/api/session', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as Record<string, unknown>;
      if (body.status !== 'succeeded' || pendingReads-- <= 0) return route.fulfill({ response });
      const { outcome: _outcome, ...pending } = body;
      await route.fulfill({ response, json: { ...pending, status: 'pending' } });
    });
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await expect(checkout.alert).toHaveText('Estamos confirmando seu pagamento…');
    await expect(checkout.pay).toBeDisabled();
    await expect(checkout.spinner).toBeVisible();
    await expect(checkout.frame.getByText('Estamos confirmando seu pagamento…')).toHaveCount(1);
    await expect(checkout.alert).not.toContainText(/Tente|outro cartão/);
    await checkout.waitForEvent('checkout-succeeded');
    expect(pendingReads).toBeLessThan(0);
    await order.expectPaid();
    expect(await checkout.events('checkout-failed')).toEqual([]);
  });

  test('a session read answered 200 with a proxy page while confirming keeps the frame reading', async ({
    checkout,
    order,
    page,
  }) => {
    await page.route('**/checkout/api/pay', dropAnswer);
    // The first read after the lost answer comes back 200 with a page that is not the BFF's
    // (a captive portal, a proxy): it says nothing, and the reads go on until the outcome.
    let portalReads = 1;
    await page.route('**/checkout/api/session', async (route) => {
      if (portalReads-- <= 0) return route.continue();
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Wi-Fi</h1>' });
    });
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await checkout.waitForEvent('checkout-succeeded');
    expect(portalReads).toBeLessThan(0);
    await order.expectPaid();
    expect(await checkout.events('checkout-failed')).toEqual([]);
  });

  test('a tab left open on a paid session learns it when shown again', async ({
    checkout,
    context,
    stack,
  }) => {
    const tabB = await context.newPage();
    const eventsB = await CheckoutPage.recordEvents(tabB);
    await tabB.goto(`${stack.E2E_DEMO_URL}/checkout`);
    const checkoutB = new CheckoutPage(tabB, eventsB);
    await checkoutB.waitUntilReady();

    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await checkout.waitForEvent('checkout-succeeded');
    // The shopper comes back to tab B: the frame reads its session again when shown.
    const frameB = tabB.frames().find((f) => f.url().includes('/checkout/frame'))!;
    await frameB.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await checkoutB.waitForEvent('checkout-succeeded');
    await new OrderPage(tabB).expectPaid();
    expect(await checkoutB.events('checkout-failed')).toEqual([]);
  });

  test('one session in two tabs: pay in one, the other ends in success, no error', async ({
    checkout,
    order,
    page,
    context,
    stack,
  }) => {
    const sessionId = await checkout.sessionId();
    // The same cart (same cookie) opened in a second tab: the same checkout session.
    const tabB = await context.newPage();
    const eventsB = await CheckoutPage.recordEvents(tabB);
    await tabB.goto(`${stack.E2E_DEMO_URL}/checkout`);
    const checkoutB = new CheckoutPage(tabB, eventsB);
    await checkoutB.waitUntilReady();
    expect(await checkoutB.sessionId()).toBe(sessionId);

    await page.bringToFront();
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();

    // Tab B, still showing the form, pays too: it is told the order is paid, as a success.
    await tabB.bringToFront();
    await checkoutB.payWith({ number: CARDS.mastercard }, 'credit');
    const succeeded = await checkoutB.waitForEvent('checkout-succeeded');
    expect(succeeded.paymentId).toBe((await checkout.events('checkout-succeeded'))[0]?.paymentId);
    await new OrderPage(tabB).expectPaid();
    expect(await checkoutB.events('checkout-failed')).toEqual([]);
    await expect(tabB.locator('body')).not.toContainText(/não foi concluído|volte ao carrinho/i);
  });
});
