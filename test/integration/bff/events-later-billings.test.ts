import { describe, expect, it } from 'vitest';
import { recordBillingEvents } from '../../../server/bff/subscriptions/billing-events';
import {
  createPlan,
  delivery,
  paySession,
  receiver,
  t,
  until,
  useEventsBff,
} from '../../support/events-bff';

// A subscription's billings after the first, as the gateway charges them at the next cycle:
// billing.paid or billing.failed, each told once (issue 10 §1).
useEventsBff();

describe('billings the gateway charges later', () => {
  it('billing.paid for the next cycle, from the gateway’s billing search, once', async () => {
    const planId = await createPlan('Events cycle');
    const { session, result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    expect(result.status).toBe('succeeded');
    const subscriptionId = (result as unknown as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    // The sandbox's business clock moves a month: the gateway charges the second billing.
    const moved = await t.sandbox.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 32 },
    });
    expect(moved.status).toBeLessThan(300);
    const second = await until(async () => {
      await recordBillingEvents(t.bff.ctx);
      return receiver.received.find(
        (e) =>
          e.type === 'billing.paid' &&
          (e.data as { subscriptionId: string; installment: number }).subscriptionId ===
            subscriptionId &&
          (e.data as { installment: number }).installment === 2,
      );
    });
    expect(second.data).toMatchObject({ sessionId: session.id, status: 'Paid', currency: 'BRL' });
    // Read again, nothing new: each billing is told once (the first one included).
    expect(await recordBillingEvents(t.bff.ctx)).toBe(0);
    await delivery().idle();
    const paid = receiver.received.filter(
      (e) =>
        e.type === 'billing.paid' &&
        (e.data as { subscriptionId: string }).subscriptionId === subscriptionId,
    );
    expect(paid.map((e) => (e.data as { installment: number }).installment).sort()).toEqual([1, 2]);
  });
});

describe('a later billing the gateway declines', () => {
  it('billing.failed, once, when the card on file is refused at the next cycle', async () => {
    const planId = await createPlan('Events declined cycle');
    const { session, result } = await paySession('4000000000002701', {
      planId,
      amount: undefined,
      maxInstallments: undefined,
    });
    expect(result.status).toBe('succeeded');
    const subscriptionId = (result as unknown as { payment: { subscriptionId: string } }).payment
      .subscriptionId;
    // The card on file changes to one the issuer refuses (05), then a month goes by.
    const token = await t.sandbox.token();
    const vaulted = await t.sandbox.call('POST', '/v1/cards/vault', {
      token,
      body: {
        cardInfo: {
          number: '4000000000000002',
          securityCode: '123',
          expirationMonth: '12',
          expirationYear: '39',
          cardholderName: 'ANA SILVA',
        },
      },
    });
    expect(vaulted.status).toBe(200);
    const changed = await t.sandbox.call(
      'POST',
      `/v1/recurrences/subscriptions/${subscriptionId}/vault`,
      { token, body: { vaultId: (vaulted.body as { vaultId: string }).vaultId } },
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await t.sandbox.call('POST', '/__sandbox/clock/advance', { token: null, body: { days: 32 } });
    const failed = await until(async () => {
      await recordBillingEvents(t.bff.ctx);
      return receiver.received.find(
        (e) =>
          e.type === 'billing.failed' &&
          (e.data as { subscriptionId: string }).subscriptionId === subscriptionId,
      );
    });
    expect(failed.data).toMatchObject({ sessionId: session.id, installment: 2, currency: 'BRL' });
    expect(['Denied', 'PaymentInvalid']).toContain((failed.data as { status: string }).status);
    expect(await recordBillingEvents(t.bff.ctx)).toBe(0);
  });
});
