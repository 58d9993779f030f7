import { describe, expect, it } from 'vitest';
import { randomDigits, randomIdBytes, uuidV7 } from '../../../server/lib/ids';

describe('randomIdBytes', () => {
  it('hands out each pooled byte once, across pool refills', () => {
    const seen = new Set<string>();
    // 20 bytes × 1,000 draws spans several 4 KiB pools; a repeat would mean reuse.
    for (let i = 0; i < 1000; i++) {
      const b = randomIdBytes(20);
      expect(b.length).toBe(20);
      seen.add(b.toString('hex'));
    }
    expect(seen.size).toBe(1000);
  });

  it('serves sizes beyond the pool directly', () => {
    expect(randomIdBytes(5000).length).toBe(5000);
  });

  it('randomDigits gives digits only, of the length asked', () => {
    expect(randomDigits(30)).toMatch(/^\d{30}$/);
  });
});

describe('uuidV7', () => {
  it('is a version 7, variant 1 UUID carrying the given milliseconds', () => {
    const at = new Date('2026-11-23T12:00:00.123Z');
    const id = uuidV7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at.getTime());
  });

  it('sorts by time, and ids of the same millisecond differ', () => {
    const early = uuidV7(new Date('2026-01-01T00:00:00Z'));
    const late = uuidV7(new Date('2027-01-01T00:00:00Z'));
    expect(early < late).toBe(true);
    const same = new Date('2026-06-01T00:00:00Z');
    expect(new Set(Array.from({ length: 100 }, () => uuidV7(same))).size).toBe(100);
  });

  it('ids of one millisecond come out in increasing order, however many', () => {
    const same = new Date('2026-06-01T00:00:00Z');
    const ids = Array.from({ length: 5000 }, () => uuidV7(same));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // A new millisecond starts from fresh random bits, still after the earlier ones.
    const next = uuidV7(new Date(same.getTime() + 1));
    expect(next > ids.at(-1)!).toBe(true);
  });
});
