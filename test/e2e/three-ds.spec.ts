import { CARDS, OTP, expect, test } from './fixtures';

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
      if (r.method() === 'POST' && /\/checkout\/challenge\/[^/]+\/return$/.test(r.url())) {
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
    // One message per failure: the frame's; the merchant page does not repeat it.
    await expect(checkout.pageError).toHaveCount(0);
    expect(await checkout.events('checkout-succeeded')).toHaveLength(0);
    expect(page.url()).toMatch(/\/checkout$/);
    expect((await merchant.session(sessionId)).status).not.toBe('succeeded');
  });

  test('closing the challenge dialog cancels the attempt', async ({ checkout, merchant }) => {
    const sessionId = await checkout.sessionId();
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    await checkout.challenge.expectOpen();
    await checkout.challenge.acsFrame();
    await checkout.challenge.close();
    await checkout.challenge.expectClosed();

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
