import { readFileSync } from 'node:fs';
import type { Page, Request } from '@playwright/test';
import { CARDS, OTP, expect, test } from './fixtures';

const CVV = '739';

/** The merchant document, shadow roots included (the frame is another origin's document). */
async function merchantDom(page: Page): Promise<string> {
  const shadows = await page.evaluate(() => {
    const out: string[] = [];
    const walk = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) {
          out.push(el.shadowRoot.innerHTML);
          walk(el.shadowRoot);
        }
        if (el instanceof HTMLInputElement) out.push(el.value);
      }
    };
    walk(document);
    return out.join('\n');
  });
  return `${await page.content()}\n${shadows}`;
}

/** True when `digits` stands alone (not inside a longer run of letters or digits). */
function containsToken(text: string, digits: string): boolean {
  return new RegExp(`(^|[^0-9A-Za-z])${digits}([^0-9A-Za-z]|$)`).test(text);
}

test.describe('card data never reaches the merchant', () => {
  // Full payments plus log and DOM scans per test: on a loaded two-core machine one test has
  // taken 32 s, so the budget is generous (never a timing assertion).
  test.describe.configure({ timeout: 120_000 });
  test('no card number or CVV in merchant requests, the merchant DOM or the logs', async ({
    checkout,
    order,
    stack,
    page,
  }) => {
    const pan = CARDS.challenge;
    const panFormatted = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
    const demoOrigin = new URL(stack.E2E_DEMO_URL).origin;
    const requests: Request[] = [];
    page.on('request', (r) => requests.push(r));
    const clientSecret = (await checkout.host.getAttribute('session'))!;

    // A challenge card: the frame encrypts the card twice (pay, then validate).
    await checkout.payWith({ number: pan, cvv: CVV }, 'debit');
    await checkout.challenge.expectOpen();
    await expect
      .poll(async () => containsToken(await merchantDom(page), CVV), {
        message: 'merchant DOM while the challenge is open',
      })
      .toBe(false);
    expect(await merchantDom(page)).not.toContain(pan);
    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();

    const dom = await merchantDom(page);
    for (const secret of [pan, panFormatted]) expect(dom).not.toContain(secret);
    expect(containsToken(dom, CVV)).toBe(false);

    const ciphertexts: string[] = [];
    for (const r of requests) {
      const text = `${r.url()}\n${r.postData() ?? ''}`;
      // No request at all, from any frame, carries the plaintext number.
      expect(text, r.url()).not.toContain(pan);
      expect(text, r.url()).not.toContain(panFormatted);
      const byMerchant = r.frame() === page.mainFrame() || new URL(r.url()).origin === demoOrigin;
      if (byMerchant) expect(containsToken(text, CVV), r.url()).toBe(false);
      const m = /"encryptedCard"\s*:\s*"([^"]+)"/.exec(r.postData() ?? '');
      if (m) ciphertexts.push(m[1]!);
    }
    expect(ciphertexts.length).toBeGreaterThanOrEqual(2);

    // The BFF logs every request at debug; the sandbox's file may be empty (it logs little).
    expect(readFileSync(stack.E2E_BFF_LOG, 'utf8')).toContain('/checkout/api/pay');
    for (const file of [stack.E2E_BFF_LOG, stack.E2E_SANDBOX_LOG]) {
      const log = readFileSync(file, 'utf8');
      for (const secret of [pan, panFormatted, clientSecret, stack.E2E_MERCHANT_SECRET]) {
        expect(log.includes(secret), `${file} holds a secret`).toBe(false);
      }
      for (const c of ciphertexts) {
        expect(log.includes(c.slice(0, 64)), `${file} holds a ciphertext`).toBe(false);
      }
      expect(log.includes(`"${CVV}"`), `${file} holds the CVV`).toBe(false);
    }
  });

  test('messages from a foreign origin are ignored by the host and the frame', async ({
    checkout,
    order,
    stack,
    page,
  }) => {
    const clientSecret = (await checkout.host.getAttribute('session'))!;
    const bearers: string[] = [];
    page.on('request', (r) => {
      const auth = r.headers()['authorization'];
      if (auth) bearers.push(auth);
    });
    // A foreign document inside the merchant page (say, an ad iframe), on the sandbox origin.
    await page.evaluate((src) => {
      const foreign = document.createElement('iframe');
      foreign.src = src;
      foreign.title = 'anúncio';
      foreign.name = 'foreign';
      document.body.append(foreign);
    }, `${stack.E2E_SANDBOX_URL}/__sandbox/clock`);
    await expect.poll(() => page.frame({ name: 'foreign' })?.url() ?? '').toContain('/__sandbox/');
    const foreign = page.frame({ name: 'foreign' })!;
    await foreign.evaluate(() => {
      const w = window as unknown as { received: unknown[] };
      w.received = [];
      window.addEventListener('message', (e) => w.received.push(e.data));
    });

    const payResponse = page.waitForResponse(
      (r) => r.url().endsWith('/checkout/api/pay') && r.request().method() === 'POST',
    );
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    const challengeId = ((await (await payResponse).json()) as { challengeId: string }).challengeId;
    expect(challengeId).toBeTruthy();
    await checkout.challenge.expectOpen();
    await checkout.challenge.acsFrame();

    await foreign.evaluate(
      ({ challengeId }) => {
        const protocol = 'card-checkout/1';
        const forged: unknown[] = [
          { type: 'challenge-answered', challengeId },
          { protocol, type: 'challenge-answered', challengeId },
          { protocol, type: 'frame-hello' },
        ];
        for (const m of forged) window.parent.postMessage(m, '*');
        // And at every frame of the merchant page: a fake init with another secret and port.
        for (let i = 0; i < window.parent.frames.length; i++) {
          const channel = new MessageChannel();
          window.parent.frames[i]!.postMessage(
            {
              protocol,
              type: 'init',
              clientSecret: 'cs_forged_secret_000000000000000000000000000000000000000000000000',
              locale: 'pt-BR',
              theme: {},
              hideButton: false,
              challengeWindowSize: '03',
            },
            '*',
            [channel.port2],
          );
          window.parent.frames[i]!.postMessage({ type: 'challenge-answered', challengeId }, '*');
        }
      },
      { challengeId },
    );

    // Nothing moved: the dialog is still open and no outcome was reported.
    await page.waitForTimeout(750);
    await checkout.challenge.expectOpen();
    expect(await checkout.events('checkout-succeeded')).toHaveLength(0);
    expect(await checkout.events('checkout-failed')).toHaveLength(0);
    expect((await checkout.events('checkout-challenge')).map((e) => e.state)).toEqual(['opened']);
    // The host never answered the forged hello: the real secret went to nobody else.
    const received = await foreign.evaluate(
      () => (window as unknown as { received: unknown[] }).received,
    );
    expect(JSON.stringify(received)).not.toContain(clientSecret);

    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
    expect(bearers.some((b) => b.includes('cs_forged'))).toBe(false);
  });

  test('the host takes challenge-answered only from its own challenge iframe, not another BFF window', async ({
    checkout,
    order,
    stack,
    page,
  }) => {
    // Another window of the BFF origin inside the merchant page (any BFF page a merchant may frame).
    await page.evaluate((src) => {
      const other = document.createElement('iframe');
      other.src = src;
      other.name = 'bff-other';
      document.body.append(other);
    }, `${stack.E2E_BFF_URL}/checkout/frame?session=cs_not_a_session`);
    await expect
      .poll(() => page.frame({ name: 'bff-other' })?.url() ?? '')
      .toContain('/checkout/frame');
    const other = page.frame({ name: 'bff-other' })!;

    const payResponse = page.waitForResponse(
      (r) => r.url().endsWith('/checkout/api/pay') && r.request().method() === 'POST',
    );
    await checkout.payWith({ number: CARDS.challenge }, 'debit');
    const challengeId = ((await (await payResponse).json()) as { challengeId: string }).challengeId;
    await checkout.challenge.expectOpen();
    await checkout.challenge.acsFrame();

    // Same origin as the real answer page, right challenge id, exact target: still ignored.
    await other.evaluate(
      ({ challengeId, target }) => {
        window.parent.postMessage({ type: 'challenge-answered', challengeId }, target);
        window.parent.postMessage(
          { protocol: 'card-checkout/1', type: 'challenge-answered', challengeId },
          target,
        );
      },
      { challengeId, target: new URL(stack.E2E_DEMO_URL).origin },
    );
    await page.waitForTimeout(750);
    await checkout.challenge.expectOpen();
    expect((await checkout.events('checkout-challenge')).map((e) => e.state)).toEqual(['opened']);

    await checkout.challenge.submitOtp(OTP);
    await checkout.waitForEvent('checkout-succeeded');
    await order.expectPaid();
  });

  test('a tampered amount in the frame request is refused; the session keeps its price', async ({
    checkout,
    merchant,
    page,
  }) => {
    const sessionId = await checkout.sessionId();
    const answers: number[] = [];
    await page.route('**/checkout/api/pay', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as Record<string, unknown>;
      const response = await route.fetch({ postData: JSON.stringify({ ...body, amount: 1 }) });
      answers.push(response.status());
      await route.fulfill({ response });
    });
    await checkout.payWith({ number: CARDS.frictionless }, 'debit');
    await expect.poll(() => answers.length).toBeGreaterThan(0);
    expect(answers[0]).toBe(400);
    await expect(checkout.alert).not.toBeEmpty();

    const session = await merchant.session(sessionId);
    expect(session.amount).toBe(4990);
    expect(session.attempts.filter((a) => a.status === 'succeeded')).toHaveLength(0);
    expect(await checkout.events('checkout-succeeded')).toHaveLength(0);
  });
});
