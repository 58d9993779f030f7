import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayValidationError, type GatewayClient } from '../../../server/gateway';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { encryptCard, sandboxClient } from './helpers';

let sb: TestSandbox;
let gc: GatewayClient;
let pem: string;

beforeAll(async () => {
  sb = await startSandbox();
  gc = sandboxClient(sb);
  pem = (await gc.getPublicKey()).key;
});
afterAll(() => sb.close());

async function vaultOf(number: string): Promise<string> {
  const card = encryptCard(pem, number, sb.realClock.now());
  return (await gc.vaultCard({ cardInfo: { cardholderName: 'ANA SILVA', encryptedCard: card } }))
    .vaultId;
}

async function advanceDays(days: number): Promise<void> {
  const res = await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { days } });
  expect(res.status).toBe(200);
}

async function refusal(p: Promise<unknown>): Promise<GatewayValidationError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayValidationError);
  return err as GatewayValidationError;
}

describe('gateway client recurrence methods against the sandbox billing engine', () => {
  it('bills a Custom plan through the client: three installments, then the subscription ends', async () => {
    const planId = await gc.createPlan({
      name: 'Três parcelas',
      description: 'Custom 20-day plan',
      amount: 33.33,
      planType: 'Custom',
      interval: 20,
      installments: 3,
      paymentMethod: 'CreditCard',
    });
    const subscriptionId = await gc.createSubscription({
      vaultId: await vaultOf('5200000000002235'),
      orderNumber: 'C-1',
      planId,
    });
    // Tokens live an hour on the sandbox clock: the client renews them itself after this.
    await advanceDays(60);
    const page = await gc.searchBillings({ orderBy: 'installment', status: 'Paid', limit: 50 });
    const mine = page.items.filter((b) => b.subscription.id === subscriptionId);
    expect(mine.map((b) => [b.installment, b.amount])).toEqual([
      [1, 33.33],
      [2, 33.33],
      [3, 33.33],
    ]);
    expect((await gc.getSubscription(subscriptionId)).status).toBe('Canceled');
  });

  it('a canceled card blocks; the client reactivates with a new vault and Actived', async () => {
    const planId = await gc.createPlan({
      name: 'Bloqueio',
      description: 'blocks on 46',
      amount: 10,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
      attempts: 4,
    });
    const subscriptionId = await gc.createSubscription({
      vaultId: await vaultOf('4000000000000465'),
      orderNumber: 'B-1',
      planId,
    });
    expect((await gc.getSubscription(subscriptionId)).status).toBe('Blocked');

    const early = await refusal(gc.setSubscriptionStatus({ subscriptionId, status: 'Actived' }));
    expect(early.status).toBe(400);
    expect(early.items[0]?.tag).toBe('status');

    const vaultId = await vaultOf('4000000000002701');
    expect(await gc.setSubscriptionVault({ subscriptionId, vaultId })).toEqual({
      id: subscriptionId,
    });
    expect(await gc.setSubscriptionStatus({ subscriptionId, status: 'Actived' })).toEqual({
      id: subscriptionId,
    });
    const sub = await gc.getSubscription(subscriptionId);
    expect(sub).toMatchObject({ status: 'Active', vaultId });
    await advanceDays(30);

    const billings = await gc.searchBillings({ orderBy: '-createdDate', limit: 100 });
    const mine = billings.items.filter((b) => b.subscription.id === subscriptionId);
    expect(mine.map((b) => b.status).sort()).toEqual(['Denied', 'Paid']);
    const paid = mine.find((b) => b.status === 'Paid')!;
    const cancel = await refusal(gc.cancelBilling(paid.id));
    expect(cancel.status).toBe(400);
    expect(cancel.items[0]?.tag).toBe('billingId');
  });

  it('plan update refusals and unknown ids reach the caller as validation errors', async () => {
    const planId = await gc.createPlan({
      name: 'Regras',
      description: 'update rules',
      amount: 25,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
    });
    const amount = await refusal(
      gc.updatePlan({
        planId,
        body: {
          merchantId: '000000000001001',
          name: 'Regras',
          description: 'update rules',
          amount: 30,
          planType: 'Monthly',
          paymentMethod: 'CreditCard',
        },
      }),
    );
    expect(amount.status).toBe(400);
    expect(amount.items[0]?.tag).toBe('amount');
    expect(await gc.setPlanStatus({ planId, status: 'Canceled' })).toBe(planId);
    const final = await refusal(gc.setPlanStatus({ planId, status: 'Active' }));
    expect(final.items[0]?.description).toContain('final');
    const missing = await refusal(gc.getPlan('00000000-0000-0000-0000-000000000000'));
    expect(missing.status).toBe(404);
    const plans = await gc.searchPlans({ status: 'Canceled', orderBy: 'name' });
    expect(plans.items.map((p) => p.id)).toContain(planId);
  });
});
