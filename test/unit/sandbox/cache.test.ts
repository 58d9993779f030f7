import { describe, expect, it } from 'vitest';
import { ResetCache, resetCache } from '../../../server/sandbox/cache';
import type { SandboxContext } from '../../../server/sandbox/context';

describe('ResetCache', () => {
  it('keeps at most `max` entries, dropping the oldest first', () => {
    const c = new ResetCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 10); // an update, not a new entry
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('when full, drops the oldest tenth at once and keeps the rest', () => {
    const c = new ResetCache<number>(20);
    for (let i = 0; i < 21; i++) c.set(`k${i}`, i);
    expect([c.get('k0'), c.get('k1')]).toEqual([undefined, undefined]);
    for (let i = 2; i < 21; i++) expect(c.get(`k${i}`)).toBe(i);
    // Room again: the next insert evicts nothing.
    c.set('k21', 21);
    expect(c.get('k2')).toBe(2);
  });

  it('one cache per sandbox and name, all emptied by the sandbox reset', async () => {
    const hooks: (() => void | Promise<void>)[] = [];
    const ctx = { onReset: (h: () => void) => hooks.push(h) } as unknown as SandboxContext;
    const other = { onReset: () => undefined } as unknown as SandboxContext;
    resetCache<string>(ctx, 'x', 10).set('k', 'v');
    resetCache<string>(ctx, 'y', 10).set('k', 'w');
    expect(resetCache<string>(ctx, 'x', 10).get('k')).toBe('v');
    expect(resetCache<string>(other, 'x', 10).get('k')).toBeUndefined();
    for (const h of hooks) await h();
    expect(resetCache<string>(ctx, 'x', 10).get('k')).toBeUndefined();
    expect(resetCache<string>(ctx, 'y', 10).get('k')).toBeUndefined();
  });
});
