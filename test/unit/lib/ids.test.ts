import { describe, expect, it } from 'vitest';
import { randomDigits, randomIdBytes } from '../../../server/lib/ids';

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
