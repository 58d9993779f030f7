import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { InFlight, loopUtilization } from '../../../../server/bff/http/in-flight';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps the event loop busy for `ms`. */
const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* busy */
  }
};

/**
 * The loop's business as a test sets it: how busy the loop really is depends on whatever else
 * the machine runs (a loaded test run shows an idle worker's loop 50–80 % busy).
 */
function scripted(): { meter: () => number; set(u: number): void; reads: number } {
  const s = {
    u: 0,
    reads: 0,
    meter: () => {
      s.reads++;
      return s.u;
    },
    set(u: number) {
      s.u = u;
    },
  };
  return s;
}

describe('InFlight', () => {
  it('is alone with one request handled on an idle loop, not with two', async () => {
    const loop = scripted();
    const f = new InFlight(loop.meter);
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

  it('is not alone while the loop was busier than 80 % of the last window', async () => {
    const loop = scripted();
    const f = new InFlight(loop.meter);
    await sleep(30);
    loop.set(0.8);
    expect(f.alone()).toBe(true);
    await sleep(30);
    loop.set(0.81);
    expect(f.alone()).toBe(false);
    // Within the window the last reading stands: the loop is not asked again.
    const reads = loop.reads;
    loop.set(0);
    expect(f.alone()).toBe(false);
    expect(loop.reads).toBe(reads);
    await sleep(30);
    expect(f.alone()).toBe(true);
  });

  it("measures the event loop's own business by default", async () => {
    const meter = loopUtilization();
    spin(30);
    // 30 ms of the loop's time spent in one task: busy however loaded the machine is.
    expect(meter()).toBeGreaterThan(0.8);
    const f = new InFlight();
    await sleep(30);
    f.alone(); // a window starts: whatever it reads, the next is only the spin
    spin(30);
    expect(f.alone()).toBe(false);
  });
});
