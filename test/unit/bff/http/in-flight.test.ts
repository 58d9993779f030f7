import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../../server/bff/http/in-flight';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps the event loop busy for `ms`. */
const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* busy */
  }
};

describe('InFlight', () => {
  it('is alone with one request handled on an idle loop, not with two', async () => {
    const f = new InFlight();
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const seen: boolean[] = [];
    const app = new Hono()
      .use('*', f.middleware())
      .get('/hold', async (c) => {
        await held;
        return c.text('ok');
      })
      .get('/look', (c) => {
        seen.push(f.alone());
        return c.text('ok');
      });
    await sleep(30);
    await app.request('/look');
    const holding = app.request('/hold');
    await app.request('/look');
    release();
    await holding;
    await sleep(30);
    await app.request('/look');
    expect(seen).toEqual([true, false, true]);
  });

  it('is not alone while the event loop was busy: requests may wait unread', async () => {
    const f = new InFlight();
    await sleep(30);
    expect(f.alone()).toBe(true);
    spin(30);
    expect(f.alone()).toBe(false);
    await sleep(40);
    expect(f.alone()).toBe(true);
  });
});
