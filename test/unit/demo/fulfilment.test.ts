import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { checkoutEventRoutes, Fulfilments, type Fulfilment } from '../../../demo/fulfilment';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function signed(id: string, body: object, secret = SECRET): Request {
  const text = JSON.stringify(body);
  const at = new Date();
  return new Request('http://demo.test/webhooks/checkout-events', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, text),
    },
    body: text,
  });
}

const succeeded = (id: string, sessionId: string) => ({
  id,
  type: 'checkout_session.succeeded',
  createdAt: new Date().toISOString(),
  data: {
    id: sessionId,
    status: 'succeeded',
    payment: { paymentId: 'pay-1', subscriptionId: null },
  },
});

describe('the demo fulfils orders from signed events', () => {
  it('fulfils once per session, whatever the redeliveries', async () => {
    const fulfilments = new Fulfilments();
    const onFulfilled = vi.fn((_f: Fulfilment) => undefined);
    const app = checkoutEventRoutes({ secret: SECRET, fulfilments, onFulfilled });
    expect((await app.fetch(signed('evt_1', succeeded('evt_1', 'cs_a')))).status).toBe(204);
    expect((await app.fetch(signed('evt_1', succeeded('evt_1', 'cs_a')))).status).toBe(204);
    expect((await app.fetch(signed('evt_2', succeeded('evt_2', 'cs_a')))).status).toBe(204);
    expect(onFulfilled).toHaveBeenCalledTimes(1);
    expect(fulfilments.get('cs_a')).toMatchObject({
      sessionId: 'cs_a',
      paymentId: 'pay-1',
      eventId: 'evt_1',
    });
  });

  it('refuses what is not signed with the shared secret: 400, nothing fulfilled', async () => {
    const fulfilments = new Fulfilments();
    const app = checkoutEventRoutes({ secret: SECRET, fulfilments });
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect((await app.fetch(signed('evt_3', succeeded('evt_3', 'cs_b'), other))).status).toBe(400);
    const unsigned = new Request('http://demo.test/webhooks/checkout-events', {
      method: 'POST',
      body: JSON.stringify(succeeded('evt_4', 'cs_b')),
    });
    expect((await app.fetch(unsigned)).status).toBe(400);
    expect(fulfilments.get('cs_b')).toBeUndefined();
  });

  it('acknowledges other event types without fulfilling anything', async () => {
    const fulfilments = new Fulfilments();
    const app = checkoutEventRoutes({ secret: SECRET, fulfilments });
    const failed = { ...succeeded('evt_5', 'cs_c'), type: 'checkout_session.failed' };
    expect((await app.fetch(signed('evt_5', failed))).status).toBe(204);
    expect(fulfilments.get('cs_c')).toBeUndefined();
  });
});
