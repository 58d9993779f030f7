import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../demo/app';

describe('demo POST /checkout', () => {
  it('is rate-limited per client: past the limit it answers 429 and creates no session', async () => {
    let sessions = 0;
    const fakeFetch = (() => {
      sessions++;
      return Promise.resolve(
        Response.json(
          {
            id: `cs_${sessions}`,
            clientSecret: `cs_${sessions}_secret_x`,
            status: 'open',
            amount: 4990,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
          },
          { status: 201 },
        ),
      );
    }) as typeof fetch;
    const { app } = createDemoApp({
      publicUrl: 'http://shop.test:3000',
      bffUrl: 'http://bff.test:3001',
      merchantSecret: 'sk_test_local',
      fetch: fakeFetch,
      checkoutRateLimitPerMinute: 3,
    });
    const added = await app.request('/cart/items', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'productId=caneca',
    });
    const cookie = added.headers.get('set-cookie')?.split(';')[0] ?? '';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.request('/checkout', { method: 'POST', headers: { cookie } });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(sessions).toBeLessThanOrEqual(3);
  });
});
