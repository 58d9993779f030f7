import { describe, expect, it } from 'vitest';
import { FaultQueue, FaultSchema, matches } from '../../../../server/sandbox/faults/faults';

describe('fault rules', () => {
  it('match by method and exact path or prefix', () => {
    expect(matches({ count: 1, path: '/v1/payments' }, 'POST', '/v1/payments')).toBe(true);
    expect(matches({ count: 1, path: '/v1/payments' }, 'POST', '/v1/payments/3ds')).toBe(false);
    expect(matches({ count: 1, path: '/v1/payments*' }, 'POST', '/v1/payments/3ds')).toBe(true);
    expect(matches({ count: 1, method: 'GET' }, 'post', '/v1/x')).toBe(false);
    expect(matches({ count: 1 }, 'GET', '/api/x')).toBe(true);
  });
  it('apply count times, oldest matching first', () => {
    const q = new FaultQueue();
    q.add({ count: 2, path: '/a', status: 503 });
    q.add({ count: 1, status: 500 });
    expect(q.take('GET', '/b')?.status).toBe(500);
    expect(q.take('GET', '/a')?.status).toBe(503);
    expect(q.take('GET', '/a')?.status).toBe(503);
    expect(q.take('GET', '/a')).toBeNull();
  });
  it('validate their body', () => {
    expect(FaultSchema.safeParse({ count: 1 }).success).toBe(false);
    expect(FaultSchema.safeParse({ count: 0, status: 500 }).success).toBe(false);
    expect(FaultSchema.safeParse({ count: 1, status: 200 }).success).toBe(false);
    expect(FaultSchema.safeParse({ count: 1, drop: true, status: 500 }).success).toBe(false);
    expect(FaultSchema.safeParse({ count: 1, method: 'post', drop: true }).data?.method).toBe(
      'POST',
    );
  });
});
