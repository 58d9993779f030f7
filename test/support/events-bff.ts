import { afterAll, beforeAll, expect } from 'vitest';
import type { CheckoutEvent } from '../../contract/events';
import type { PayResult } from '../../server/bff/checkout-api';
import { eventDeliveryOf } from '../../server/bff/events/delivery';
import { MERCHANT_SECRET, startBff, type TestBff } from './bff';
import { EVENTS_SECRET, startEventReceiver, type EventReceiver } from './event-receiver';

// The events tests (test/integration/bff/events*.test.ts): one BFF per file whose events go,
// signed, to a real local receiver that verifies them with the standardwebhooks package.
// `t` and `receiver` are set by `useEventsBff()`'s beforeAll (read them inside tests).
export let t: TestBff;
export let receiver: EventReceiver;
export const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

/** Starts the receiver and the BFF before the file's tests, and stops both after them. */
export function useEventsBff(): void {
  beforeAll(async () => {
    receiver = await startEventReceiver();
    t = await startBff({
      config: {
        payRateLimitPerMinute: 10_000,
        maxAttempts: 2,
        eventsUrl: receiver.url,
        eventsSecret: EVENTS_SECRET,
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
}

export const delivery = () => eventDeliveryOf(t.bff.ctx)!;

export async function until<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The one event of a type about a session (or subscription) that reached the receiver. */
export const receivedFor = (type: string, key: (e: CheckoutEvent) => boolean) =>
  until(() => receiver.received.find((e) => e.type === type && key(e)));
export const ofSession = (id: string) => (e: CheckoutEvent) =>
  (e.data as { id?: string; sessionId?: string }).id === id ||
  (e.data as { sessionId?: string }).sessionId === id;

export async function paySession(
  number: string,
  body: Record<string, unknown> = { amount: 7_300 },
) {
  const s = await t.createSession(body);
  const res = await t.pay(
    s.clientSecret,
    await t.payBody(s.clientSecret, number, { method: 'credit' }),
  );
  return { session: s, result: res.body as PayResult };
}

export async function createPlan(name: string): Promise<string> {
  const res = await t.sandbox.call('POST', '/v1/recurrences/plans', {
    body: {
      name,
      description: name,
      paymentMethod: 'CreditCard',
      amount: 19.9,
      planType: 'Monthly',
    },
  });
  expect(res.status).toBe(200);
  return res.body as string;
}
