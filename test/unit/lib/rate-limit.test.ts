import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../../server/lib/rate-limit';

describe('FixedWindowLimiter', () => {
  it('allows `limit` hits per window and says how long to wait after', () => {
    const l = new FixedWindowLimiter({ limit: 2, windowMs: 60_000 });
    expect(l.hit('a', 0)).toEqual({ ok: true });
    expect(l.hit('a', 1_000)).toEqual({ ok: true });
    expect(l.hit('a', 2_000)).toEqual({ ok: false, retryAfterSeconds: 58 });
    expect(l.hit('b', 2_000)).toEqual({ ok: true });
    expect(l.hit('a', 60_000)).toEqual({ ok: true });
  });

  it('holds at most maxKeys keys however many addresses come, even within one window', () => {
    const l = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) l.hit(`198.51.100.${i}`, i);
    expect(l.size).toBeLessThanOrEqual(100);
    // The newest keys are the ones kept: a fresh burst from one of them is still limited.
    expect(l.hit('198.51.100.9999', 10_000).ok).toBe(false);
  });
});
