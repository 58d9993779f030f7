import type { Route } from '@playwright/test';
import { CARDS, OTP, expect, test } from './fixtures';
import { saveScreenshot } from './support/screenshots';

test.describe('3-D Secure', () => {
  test('challenge answered with the right OTP pays, and a replayed TermUrl post is refused', async ({
    checkout,
    order,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    const termPosts: { url: string; body: string }[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/checkout\/challenge\/[^/]+\/return(\?|$)/.test(r.url())) {
        termPosts.push({ url: r.url(), body: r.postData() ?? '' });
      }
    });

    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    expect(
      (await merchant.session(sessionId)).attempts.filter((a) => a.status === 'succeeded'),
    ).toHaveLength(1);

    // The ACS answer is single use: posting the same PaRes and MD again is refused.
    expect(termPosts).toHaveLength(1);
    const replay = await page.request.post(termPosts[0]!.url, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: termPosts[0]!.body,
    });
    expect(replay.status()).toBeGreaterThanOrEqual(400);
    expect(replay.status()).toBeLessThan(500);
    const after = await merchant.session(sessionId);
    expect(after.status).toBe('succeeded');
    expect(after.attempts.filter((a) => a.status === 'succeeded')).toHaveLength(1);
  });

  test('a challenge the bank fails ends in checkout-failed', async ({
    checkout,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payWith({ number: CARDS.challengeFails }, 'debit');
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.code).toBe('three_ds_failed');
    await checkout.challenge.expectClosed();
    await checkout.expectFailureToldOnce('Não foi possível confirmar sua identidade com o banco.');
    expect(await checkout.events('checkout-succeeded')).toHaveLength(0);
    expect(page.url()).toMatch(/\/checkout$/);
    expect((await merchant.session(sessionId)).status).not.toBe('succeeded');
  });

  test('closing the challenge dialog cancels the attempt', async ({ checkout, merchant }) => {
    const sessionId = await checkout.sessionId();
    // The bank's iframe exists only while a challenge is open (none to build at page load).
    expect(await checkout.challenge.hostFrames()).toBe(1);
    await checkout.payIntoChallenge();
    expect(await checkout.challenge.hostFrames()).toBe(2);
    await checkout.challenge.close();
    await checkout.challenge.expectClosed();
    expect(await checkout.challenge.hostFrames()).toBe(1);

    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.code).toBe('challenge_canceled');
    const challengeEvents = await checkout.events('checkout-challenge');
    expect(challengeEvents.map((e) => e.state)).toEqual(['opened', 'closed']);
    expect(challengeEvents[1]?.reason).toBe('closed');
    expect((await merchant.session(sessionId)).status).not.toBe('succeeded');
  });

  test('a frictionless 3DS failure fails without a challenge', async ({ checkout, merchant }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payWith({ number: CARDS.frictionlessFails }, 'debit');
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.code).toBe('three_ds_failed');
    expect(await checkout.events('checkout-challenge')).toHaveLength(0);
    await expect(checkout.alert).not.toBeEmpty();
    const session = await merchant.session(sessionId);
    expect(session.status).not.toBe('succeeded');
    expect(session.attempts.map((a) => a.status)).toEqual(['failed']);
  });
});

test.describe('the 3-D Secure dialog', () => {
  // A payment (two, across tabs) and a bank visit per test: room for a loaded two-core machine.
  test.describe.configure({ timeout: 90_000 });

  test("focus lands on the bank's code field, never the close button, and comes back", async ({
    checkout,
    order,
  }) => {
    await checkout.page.setViewportSize({ width: 1280, height: 800 });
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    await checkout.challenge.expectOpen();
    await expect(checkout.alert).toHaveText('Confirme o pagamento na janela do seu banco.');
    await checkout.challenge.acsFrame();
    await expect.poll(() => checkout.challenge.focusedPart()).toBe('challenge-frame');
    await expect.poll(() => checkout.challenge.otpFocused()).toBe(true);
    await saveScreenshot(checkout.page, 'challenge-1280x800', false);

    // Esc still cancels from the dialog's own chrome (key presses inside the bank's page go
    // to the bank's cross-origin document, never to the merchant page); the bank notice goes
    // and the focus is back in the form, on the pay button.
    await checkout.challenge.closeButton.focus();
    await checkout.page.keyboard.press('Escape');
    await checkout.challenge.expectClosed();
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed.code).toBe('challenge_canceled');
    await expect(checkout.alert).not.toContainText('janela do seu banco');
    await expect.poll(() => checkout.focusedInFrame()).toBe('pay');

    // Typing straight away works: the shopper pays again from where the focus is.
    await checkout.page.keyboard.press('Enter');
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
  });

  test('the close button cancels without using an attempt; the notice goes', async ({
    checkout,
    merchant,
  }) => {
    const sessionId = await checkout.sessionId();
    // The bank's iframe exists only while a challenge is open (none to build at page load).
    expect(await checkout.challenge.hostFrames()).toBe(1);
    await checkout.payIntoChallenge();
    expect(await checkout.challenge.hostFrames()).toBe(2);
    await checkout.challenge.close();
    await checkout.challenge.expectClosed();
    expect(await checkout.challenge.hostFrames()).toBe(1);
    await checkout.waitForEvent('checkout-failed');
    await expect(checkout.alert).toHaveText(
      'A confirmação com o banco foi cancelada. Tente de novo. Restam 3 tentativas.',
    );
    const session = (await merchant.session(sessionId)) as unknown as { attemptsLeft: number };
    expect(session.attemptsLeft).toBe(3);
  });

  test('a cancel whose answer is lost still tells the page and the shopper it was canceled', async ({
    checkout,
    page,
  }) => {
    await page.route('**/checkout/api/challenge/cancel', async (route) => {
      await route.fetch();
      await route.abort('connectionreset');
    });
    await checkout.payIntoChallenge();
    const readies = (await checkout.events('checkout-ready')).length;
    await checkout.challenge.close();
    await checkout.challenge.expectClosed();
    const failed = await checkout.waitForEvent('checkout-failed');
    expect(failed).toMatchObject({ code: 'challenge_canceled', retryable: true });
    await expect(checkout.alert).toHaveText(
      'A confirmação com o banco foi cancelada. Tente de novo. Restam 3 tentativas.',
    );
    // The form is back as after any failure: the frame did not start over.
    expect(await checkout.events('checkout-ready')).toHaveLength(readies);
  });

  test('the bank notice goes when the bank says no, too', async ({ checkout }) => {
    await checkout.payWith({ number: CARDS.challengeFails }, 'debit');
    await checkout.challenge.expectOpen();
    await expect(checkout.alert).toContainText('janela do seu banco');
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-failed');
    await checkout.challenge.expectClosed();
    await expect(checkout.alert).not.toContainText('janela do seu banco');
  });

  test('a reload during a challenge shows the bank step waiting and reopens it', async ({
    checkout,
    order,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payIntoChallenge();

    await page.reload();
    await expect(checkout.cardNumber).toBeVisible();
    await expect(checkout.alert).toHaveText(
      'Falta confirmar o pagamento com o seu banco. Confira os dados do cartão e continue.',
    );
    await expect(checkout.pay).toHaveText(/Continuar com o banco/);
    expect(await checkout.sessionId()).toBe(sessionId);

    // The card is typed again (it never leaves the frame's memory), then the same bank step.
    await checkout.fillCard({ number: CARDS.challenge });
    await checkout.pay.click();
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    const session = await merchant.session(sessionId);
    // One attempt, the one the challenge belonged to: nothing was canceled by the reload.
    expect(session.attempts.map((a) => a.status)).toEqual(['succeeded']);
  });

  test('a frame rebuilt during a challenge closes the stale dialog and goes on from the bank step', async ({
    checkout,
    order,
    merchant,
  }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payIntoChallenge();
    // The page changes an attribute the frame is built from: a new frame, the old one gone.
    await checkout.host.evaluate((el) => el.setAttribute('submit-label', 'Pagar agora'));
    // The dialog of the old frame's challenge closes with it (nobody would hear its answer).
    await checkout.challenge.expectClosed();
    await expect(checkout.alert).toHaveText(
      'Falta confirmar o pagamento com o seu banco. Confira os dados do cartão e continue.',
    );
    await checkout.fillCard({ number: CARDS.challenge });
    await checkout.pay.click();
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    const session = await merchant.session(sessionId);
    expect(session.attempts.map((a) => a.status)).toEqual(['succeeded']);
  });

  test('a reload after the bank answered, before the frame completed, finishes the payment', async ({
    checkout,
    order,
    page,
  }) => {
    // The bank's answer arrives, but the page goes away before the frame's complete call.
    // The complete call never reaches the BFF: a held route may be let through when the page
    // reloads, so it is refused at once (the old frame is gone before it could retry).
    const held: Route[] = [];
    await page.route('**/checkout/api/challenge/complete', (route) => {
      held.push(route);
      return route.abort();
    });
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    await checkout.challenge.expectOpen();
    await checkout.challenge.submitOtp(OTP);
    await checkout.challenge.expectClosed();
    await expect.poll(() => held.length).toBe(1);
    await page.reload();
    // The new page's calls go through.
    await page.unroute('**/checkout/api/challenge/complete');

    await expect(checkout.pay).toHaveText(/Continuar com o banco/);
    await checkout.fillCard({ number: CARDS.challenge });
    await checkout.pay.click();
    // No second visit to the bank: only the validate call was left.
    await checkout.waitForEvent('checkout-succeeded');
    expect(
      (await checkout.events('checkout-challenge')).filter((e) => e.state === 'opened'),
    ).toHaveLength(1);
    await order.expectPaid();
  });
});
