import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../demo/app';

const SECRET = 'sk_test_demo_unit_secret';
const item = {
  movementId: 42,
  nsu: '123456789012',
  codAuth: 'A1B2C3',
  installmentNumber: 1,
  moment: '2026-03-04T10:00:00.000-03:00',
  type: 'TransactionStatus',
  oldValue: '',
  newValue: 'Authorized',
  receivedAt: '2026-03-04T13:00:01.000Z',
  status: 'processed',
  processedAt: '2026-03-04T13:00:01.010Z',
  duplicates: 0,
  sessionId: 'cs_abc',
};

/** A demo app whose BFF is a fake recording what it was asked. */
function demo(answer: () => Response | Promise<Response>) {
  const calls: { url: string; authorization: string | null }[] = [];
  const fakeFetch = ((input: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(input),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    return Promise.resolve(answer());
  }) as typeof fetch;
  const { app } = createDemoApp({
    publicUrl: 'http://shop.test:3000',
    bffUrl: 'http://bff.test:3001/',
    merchantSecret: SECRET,
    fetch: fakeFetch,
  });
  return { app, calls };
}

describe('demo console notifications', () => {
  it('notifications.json asks the BFF with the merchant secret and hands the browser only the rows', async () => {
    const { app, calls } = demo(() => Response.json({ hasMore: false, data: [item] }));
    const res = await app.request('/console/notifications.json');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ items: [expect.objectContaining({ movementId: 42 })] });
    expect(text).not.toContain(SECRET);
    expect(calls).toEqual([
      {
        url: 'http://bff.test:3001/v1/webhook-notifications?limit=50',
        authorization: `Bearer ${SECRET}`,
      },
    ]);
  });

  it('a BFF that fails or answers nonsense is a 502 without details', async () => {
    for (const answer of [
      () => new Response('[]', { status: 500 }),
      () => Response.json({ hasMore: false, data: [{ movementId: 'x' }] }),
      () => Promise.reject(new TypeError('fetch failed')),
    ]) {
      const res = await demo(answer).app.request('/console/notifications.json');
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'BFF unavailable' });
    }
  });

  it('the console renders the rows, a live status region and the polling script as a file', async () => {
    const { app } = demo(() => Response.json({ hasMore: false, data: [item] }));
    const html = await (await app.request('/console')).text();
    expect(html).toContain('Notificações do gateway');
    expect(html).toMatch(/data-testid="notification-row"\s+data-movement-id="42"/);
    expect(html).toMatch(/role="status"\s+aria-live="polite"/);
    expect(html).toContain('<script type="module" src="/console/notifications.js"></script>');
    expect(html).not.toContain(SECRET);
    const script = await app.request('/console/notifications.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const js = await script.text();
    expect(js).toContain("fetch('/console/notifications.json'");
    // Rows are built with textContent, never parsed as HTML.
    expect(js).not.toMatch(/innerHTML|insertAdjacentHTML|outerHTML/);
  });

  it('a notification field is escaped in the server-rendered row', async () => {
    const { app } = demo(() =>
      Response.json({
        hasMore: false,
        data: [{ ...item, newValue: '<img src=x onerror=alert(1)>' }],
      }),
    );
    const html = await (await app.request('/console')).text();
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
