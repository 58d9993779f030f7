import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayValidationError, type GatewayClient } from '../../../server/gateway';
import { listen } from '../../support/servers';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { encryptCard, sandboxClient, spToday } from './helpers';

let sb: TestSandbox;
let gc: GatewayClient;
let pem: string;

beforeAll(async () => {
  sb = await startSandbox();
  gc = sandboxClient(sb);
  pem = (await gc.getPublicKey()).key;
});
afterAll(() => sb.close());

const ACCOUNT = 1001;
const card = (number: string) => encryptCard(pem, number, sb.realClock.now());

describe('gateway client against the sandbox: recurrence', () => {
  it('plans: create, read, search, update, status', async () => {
    const planId = await gc.createPlan({
      name: 'Gold monthly',
      description: 'Gold membership',
      amount: 49.9,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
      attempts: 4,
    });
    expect(typeof planId).toBe('string');
    const plan = await gc.getPlan(planId);
    expect(plan).toMatchObject({
      id: planId,
      name: 'Gold monthly',
      amount: 49.9,
      status: 'Active',
    });
    const found = await gc.searchPlans({ name: 'Gold monthly', page: 1, limit: 10 });
    expect(found.items.map((p) => p.id)).toContain(planId);
    expect(found.total).toBeGreaterThanOrEqual(1);
    expect(
      await gc.updatePlan({
        planId,
        body: {
          merchantId: plan.merchantId,
          name: 'Gold (renamed)',
          description: plan.description,
          amount: plan.amount,
          planType: plan.planType,
          paymentMethod: plan.paymentMethod,
        },
      }),
    ).toBe(planId);
    expect((await gc.getPlan(planId)).name).toBe('Gold (renamed)');
    expect(await gc.setPlanStatus({ planId, status: 'Inactive' })).toBe(planId);
    expect((await gc.getPlan(planId)).status).toBe('Inactive');
  });

  it('a Custom plan without its interval is a GatewayValidationError from the sandbox', async () => {
    const err = await gc
      .createPlan({
        name: 'Odd',
        description: 'Odd plan',
        amount: 10,
        planType: 'Custom',
        paymentMethod: 'CreditCard',
        installments: 3,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayValidationError);
    expect((err as GatewayValidationError).items[0]?.tag).toBe('interval');
  });

  it('subscriptions and billings: subscribe a vaulted card, read, search, cancel', async () => {
    const planId = await gc.createPlan({
      name: 'Silver',
      description: 'Silver membership',
      amount: 19.9,
      planType: 'Monthly',
      paymentMethod: 'CreditCard',
    });
    const { vaultId } = await gc.vaultCard({
      cardInfo: { cardholderName: 'ANA SILVA', encryptedCard: card('4000000000002701') },
    });
    const subscriptionId = await gc.createSubscription({ vaultId, orderNumber: 'ORD-1', planId });
    const sub = await gc.getSubscription(subscriptionId);
    expect(sub).toMatchObject({ id: subscriptionId, vaultId, status: 'Active' });
    expect(sub.plan.id).toBe(planId);
    const subs = await gc.searchSubscriptions({ planName: 'Silver' });
    expect(subs.items.map((s) => s.id)).toContain(subscriptionId);

    const billings = await gc.searchBillings({});
    expect(Array.isArray(billings.items)).toBe(true);

    const other = await gc.vaultCard({
      cardInfo: { cardholderName: 'ANA SILVA', encryptedCard: card('5200000000002235') },
    });
    expect(await gc.setSubscriptionVault({ subscriptionId, vaultId: other.vaultId })).toEqual({
      id: subscriptionId,
    });
    expect(await gc.setSubscriptionStatus({ subscriptionId, status: 'Canceled' })).toEqual({
      id: subscriptionId,
    });
    expect((await gc.getSubscription(subscriptionId)).status).toBe('Canceled');
  });
});

describe('gateway client against the sandbox: bank slips', () => {
  it('issues a slip by the control plane, then lists and reads it', async () => {
    const today = spToday(sb.clock.now());
    const issued = await sb.call('POST', '/__sandbox/bank-slips', {
      token: null,
      body: { accountNumber: ACCOUNT, value: 150.25, dueDate: today },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const id = (issued.body as { id: string }).id;
    const range = { accountNumber: ACCOUNT, startDate: today, endDate: today };
    const rows = await gc.listBankSlipsByDueDate(range);
    expect(rows.find((r) => r.id === id)).toMatchObject({ value: 150.25, dueDate: today });
    const details = await gc.getBankSlip({ accountNumber: ACCOUNT, id });
    expect(details).toMatchObject({ id, success: true });

    const paid = await sb.call('POST', `/__sandbox/bank-slips/${id}/pay`, {
      token: null,
      body: {},
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const byPayment = await gc.listBankSlipsByPaymentDate(range);
    expect(byPayment.find((r) => r.id === id)?.statusBill).toBe(3);
    const credit = await gc.listBankSlipsByCreditDate({
      accountNumber: ACCOUNT,
      startDate: today,
      endDate: new Date(Date.parse(today) + 10 * 86_400_000).toISOString().slice(0, 10),
    });
    // Credited on the next business day after payment, as a PascalCase row.
    expect(credit.find((r) => r.Id === id)).toMatchObject({ Value: 150.25, StatusBill: 3 });
  });

  it('an unknown slip is a GatewayValidationError', async () => {
    await expect(
      gc.getBankSlip({ accountNumber: ACCOUNT, id: 'no-such-slip' }),
    ).rejects.toBeInstanceOf(GatewayValidationError);
  });
});

describe('gateway client against the sandbox: webhooks', () => {
  it('registers, reads and removes the webhook URL', async () => {
    const basicAuth = Buffer.from('gateway:gateway').toString('base64');
    // The gateway checks the URL is reachable: a receiver must listen there.
    const receiver = await listen(new Hono().post('/webhooks/gateway', (c) => c.body(null, 200)));
    const url = `${receiver.url}/webhooks/gateway`;
    expect(await gc.setWebhook({ accountNumber: ACCOUNT, url, basicAuth })).toEqual({ url });
    expect(await gc.getWebhook({ accountNumber: ACCOUNT })).toEqual({ url });
    expect(await gc.deleteWebhook({ accountNumber: ACCOUNT })).toEqual({ url });
    await expect(gc.getWebhook({ accountNumber: ACCOUNT })).rejects.toBeInstanceOf(
      GatewayValidationError,
    );
    await receiver.close();
  });
});
