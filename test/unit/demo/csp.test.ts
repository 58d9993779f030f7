import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../demo/app';

// The storefront runs under the policy the README gives merchants, so every end-to-end spec
// (the card frame, the 3-D Secure dialog that moves on to the bank's page) runs under it too.
describe('the demo storefront Content Security Policy', () => {
  it('frames the BFF and the issuers’ pages: https:, and the sandbox bank given', async () => {
    const { app } = createDemoApp({
      publicUrl: 'http://shop.test:3000',
      bffUrl: 'http://bff.internal:3001',
      bffPublicUrl: 'https://pay.shop.test/',
      issuerOrigins: ['http://127.0.0.1:4010'],
      merchantSecret: 'sk_test_local',
    });
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "script-src 'self' https://pay.shop.test; frame-src https://pay.shop.test http://127.0.0.1:4010 https:",
    );
  });

  it('the checkout page runs no inline script: its own is a served file', async () => {
    const { app, carts } = createDemoApp({
      publicUrl: 'http://shop.test:3000',
      bffUrl: 'http://bff.internal:3001',
      merchantSecret: 'sk_test_local',
      distDir: '/nonexistent',
    });
    const cart = carts.create();
    carts.add(cart, 'caneca');
    cart.checkout = { sessionId: 'cs_1', clientSecret: 'cs_1_secret_x', amount: 4990 };
    const page = await app.request('/checkout', { headers: { cookie: `cart=${cart.id}` } });
    expect(page.status).toBe(200);
    const scripts = [...(await page.text()).matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(1);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/\ssrc="/);
      expect(body!.trim()).toBe('');
    }
    const own = await app.request('/checkout-page.js');
    expect(own.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await own.text()).toContain("addEventListener('checkout-failed'");
  });
});

describe('tsx demo/main.ts', () => {
  it("allows the local sandbox's bank by default, or the origins given", async () => {
    const { readDemoEnv } = await import('../../../demo/env');
    expect(readDemoEnv({}).DEMO_ISSUER_ORIGINS).toEqual(['http://localhost:4010']);
    expect(
      readDemoEnv({ DEMO_ISSUER_ORIGINS: 'http://127.0.0.1:4010, https://acs.test' })
        .DEMO_ISSUER_ORIGINS,
    ).toEqual(['http://127.0.0.1:4010', 'https://acs.test']);
  });
});
