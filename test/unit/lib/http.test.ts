import { describe, expect, it } from 'vitest';
import { nulFieldOf } from '../../../server/lib/http';

/** `{a: [[…[leaf]…]]}` nested `depth` arrays deep, built without recursion. */
function nested(depth: number, leaf: unknown): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return { a: value };
}

describe('nulFieldOf', () => {
  it('names the first field holding a NUL, keys included, depth first', () => {
    expect(nulFieldOf('a\0')).toBe('');
    expect(nulFieldOf({ a: 'ok', b: { c: ['x', 'y\0'] } })).toBe('b.c.1');
    expect(nulFieldOf({ a: { 'k\0': 1 }, b: 'z\0' })).toBe('a.k\0');
    expect(nulFieldOf({ a: ['x\0'], b: 'y\0' })).toBe('a.0');
    expect(nulFieldOf({ a: 'x\0', 'b\0': 1 })).toBe('a');
    expect(nulFieldOf({ a: [1, null, true, { b: 'ok' }] })).toBeNull();
  });

  it('walks a value nested 10,000 levels without exhausting the stack', () => {
    expect(nulFieldOf(nested(10_000, 'ok'))).toBeNull();
    const found = nulFieldOf(nested(10_000, 'x\0'));
    expect(found).toBe(['a', ...Array<string>(10_000).fill('0')].join('.'));
  });
});
