import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BillingSearchResponseSchema,
  SubscriptionSchema,
  SubscriptionSearchResponseSchema,
} from '../../../../server/gateway/schemas/recurrence';
import { sandboxVaultPort } from '../../../../server/sandbox/recurrence';
import { BillingEngine } from '../../../../server/sandbox/recurrence/engine';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import {
  DAY_MS,
  advanceDays,
  billingsOf,
  createPlan,
  firstTag,
  gw,
  monthlyPlan,
  subscribe,
  subscriptionStatus,
  vault,
} from './helpers';

const INSUFFICIENT_FUNDS = '4000000000009995';
const CANCELED_CARD = '4000000000000465';

let sb: TestSandbox;
beforeEach(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.close());

function dayOf(iso: string, start: number): number {
  return (Date.parse(iso) - start) / DAY_MS;
}

describe('billing engine', () => {
  it('bills a monthly plan at creation and every 30 days: 12 months, all Paid', async () => {
    const planId = await createPlan(sb);
    const subId = await subscribe(sb, planId, await vault(sb));
    const first = await billingsOf(sb, subId);
    // No trial: the first installment is charged before the create call answers.
    expect(first.map((b) => [b.installment, b.status])).toEqual([[1, 'Paid']]);
    const start = Date.parse(first[0]!.expireAt);

    await advanceDays(sb, 335);
    const year = await billingsOf(sb, subId);
    expect(year).toHaveLength(12);
    expect(year.every((b) => b.status === 'Paid' && b.amount === 49.9)).toBe(true);
    expect(year.map((b) => dayOf(b.expireAt, start))).toEqual(
      Array.from({ length: 12 }, (_, i) => i * 30),
    );
    expect(year[0]!.subscription).toMatchObject({ status: 'Active', plan: { id: planId } });
    // The answers satisfy the gateway client's response schemas.
    const page = await gw(sb, 'GET', '/v1/recurrences/billing?limit=100');
    expect(BillingSearchResponseSchema.safeParse(page.body).success).toBe(true);
    const sub = await gw(sb, 'GET', `/v1/recurrences/subscriptions/${subId}`);
    expect(SubscriptionSchema.safeParse(sub.body).success).toBe(true);
    const subs = await gw(sb, 'GET', '/v1/recurrences/subscriptions?planName=gold');
    expect(SubscriptionSearchResponseSchema.parse(subs.body).total).toBe(1);

    // Idempotent: advancing by nothing creates nothing new.
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { seconds: 0 } });
    await sb.sandbox.ctx.scheduler.runDueNow();
    expect(await billingsOf(sb, subId)).toHaveLength(12);
  });

  it('charges a plan amount rounded half up to the cent, within what a payment carries', async () => {
    const card = await vault(sb);
    const chargedCents = async (amount: number) => {
      const planId = await createPlan(sb, { ...monthlyPlan, amount });
      const [billing] = await billingsOf(
        sb,
        await subscribe(sb, planId, card, `O${amount}`.slice(0, 10)),
      );
      const row = await sb.sandbox.ctx.db
        .selectFrom('recurrence_billings')
        .select('payment_id')
        .where('id', '=', billing!.id)
        .executeTakeFirstOrThrow();
      const payment = row.payment_id
        ? await sb.sandbox.ctx.db
            .selectFrom('payments')
            .select('amount')
            .where('payment_id', '=', row.payment_id)
            .executeTakeFirstOrThrow()
        : null;
      return { status: billing!.status, cents: payment?.amount ?? null };
    };
    // 1.005 is stored as 1.00499999…: Math.round(1.005 * 100) charged 100 cents.
    expect(await chargedCents(1.005)).toEqual({ status: 'Paid', cents: 101 });
    expect(await chargedCents(10.005)).toEqual({ status: 'Paid', cents: 1001 });
    expect(await chargedCents(99_999_999.99)).toEqual({ status: 'Paid', cents: 9_999_999_999 });
    // The spec gives a plan 12 integer digits, a payment 10 digits of cents: no payment.
    expect(await chargedCents(99_999_999.995)).toEqual({ status: 'PaymentInvalid', cents: null });
    expect(await chargedCents(999_999_999_999.99)).toEqual({
      status: 'PaymentInvalid',
      cents: null,
    });
  });

  it('respects trial days', async () => {
    const planId = await createPlan(sb, { ...monthlyPlan, trialDays: 7 });
    const subId = await subscribe(sb, planId, await vault(sb));
    expect(await billingsOf(sb, subId)).toHaveLength(0);
    await advanceDays(sb, 6);
    expect(await billingsOf(sb, subId)).toHaveLength(0);
    await advanceDays(sb, 1);
    const after = await billingsOf(sb, subId);
    expect(after.map((b) => b.status)).toEqual(['Paid']);
    const created = await gw(sb, 'GET', `/v1/recurrences/subscriptions/${subId}`);
    const createdAt = Date.parse((created.body as { createdDate: string }).createdDate);
    expect(dayOf(after[0]!.expireAt, createdAt)).toBe(7);
  });

  it('ends a Custom 20-day plan of 3 installments after the third', async () => {
    const planId = await createPlan(sb, {
      ...monthlyPlan,
      planType: 'Custom',
      interval: 20,
      installments: 3,
    });
    const subId = await subscribe(sb, planId, await vault(sb));
    await advanceDays(sb, 200);
    const all = await billingsOf(sb, subId);
    const start = Date.parse(all[0]!.expireAt);
    expect(all.map((b) => [b.installment, b.status, dayOf(b.expireAt, start)])).toEqual([
      [1, 'Paid', 0],
      [2, 'Paid', 20],
      [3, 'Paid', 40],
    ]);
    expect(await subscriptionStatus(sb, subId)).toBe('Canceled');
  });

  it('retries insufficient funds on days 3, 5, 9 and 17 after a due day 1, then Denied', async () => {
    const planId = await createPlan(sb, { ...monthlyPlan, attempts: 4 });
    const subId = await subscribe(sb, planId, await vault(sb, INSUFFICIENT_FUNDS));
    const [billing] = await billingsOf(sb, subId);
    expect(billing).toMatchObject({ status: 'Opened', installment: 1 });
    const due = Date.parse(billing!.expireAt);

    // Walk day by day; every attempt stamps modifiedDate at the exact retry instant.
    const attemptDay = (iso: string) => Math.round(dayOf(iso, due) * 1000) / 1000;
    const attemptDays = new Set<number>([attemptDay(billing!.modifiedDate)]);
    for (let day = 1; day <= 20; day++) {
      await advanceDays(sb, 1);
      const [b] = await billingsOf(sb, subId);
      attemptDays.add(attemptDay(b!.modifiedDate));
    }
    // Due day 1 = offset 0; days 3, 5, 9, 17 = offsets 2, 4, 8, 16.
    expect([...attemptDays].map((d) => d + 1)).toEqual([1, 3, 5, 9, 17]);
    const [final] = await billingsOf(sb, subId);
    expect(final!.status).toBe('Denied');
    expect(await subscriptionStatus(sb, subId)).toBe('Active');

    // The next installment still comes 30 days after the first due date.
    await advanceDays(sb, 10);
    const both = await billingsOf(sb, subId);
    expect(both).toHaveLength(2);
    expect(dayOf(both[1]!.expireAt, due)).toBe(30);
  });

  it('does not retry when the plan has no attempts', async () => {
    const planId = await createPlan(sb);
    const subId = await subscribe(sb, planId, await vault(sb, INSUFFICIENT_FUNDS));
    expect((await billingsOf(sb, subId)).map((b) => b.status)).toEqual(['Denied']);
  });

  it('blocks at once on a canceled card; a new vault and Actived resume billing', async () => {
    const planId = await createPlan(sb, { ...monthlyPlan, attempts: 4 });
    const subId = await subscribe(sb, planId, await vault(sb, CANCELED_CARD));
    expect((await billingsOf(sb, subId)).map((b) => b.status)).toEqual(['Denied']);
    expect(await subscriptionStatus(sb, subId)).toBe('Blocked');

    // No retry and no new billing while blocked.
    await advanceDays(sb, 40);
    expect(await billingsOf(sb, subId)).toHaveLength(1);

    const setStatus = (status: string) =>
      gw(sb, 'POST', `/v1/recurrences/subscriptions/${subId}/status`, { status });
    const early = await setStatus('Actived');
    expect(early.status).toBe(400);
    expect(JSON.stringify(early.body)).toContain('vault');

    const current = await gw(sb, 'GET', `/v1/recurrences/subscriptions/${subId}`);
    const canceledVault = (current.body as { vaultId: string }).vaultId;
    const same = await gw(sb, 'POST', `/v1/recurrences/subscriptions/${subId}/vault`, {
      vaultId: canceledVault,
    });
    expect(same.status).toBe(400);
    expect(firstTag(same.body)).toBe('vaultId');

    const newVault = await vault(sb);
    const set = await gw(sb, 'POST', `/v1/recurrences/subscriptions/${subId}/vault`, {
      vaultId: newVault,
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ id: subId });
    const resumed = await setStatus('Actived');
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ id: subId });
    expect(await subscriptionStatus(sb, subId)).toBe('Active');

    // The installment missed while blocked is billed at once on the new card.
    const after = await billingsOf(sb, subId);
    expect(after.map((b) => [b.installment, b.status])).toEqual([
      [1, 'Denied'],
      [2, 'Paid'],
    ]);
    const sub = await gw(sb, 'GET', `/v1/recurrences/subscriptions/${subId}`);
    expect(sub.body).toMatchObject({ vaultId: newVault, status: 'Active' });
  });

  it('cancels an Opened billing in retry and refuses to cancel a Paid one', async () => {
    const planId = await createPlan(sb, { ...monthlyPlan, attempts: 2 });
    const retrying = await subscribe(sb, planId, await vault(sb, INSUFFICIENT_FUNDS), 'A');
    const paid = await subscribe(sb, planId, await vault(sb), 'B');
    const [open] = await billingsOf(sb, retrying);
    const [done] = await billingsOf(sb, paid);
    expect(open!.status).toBe('Opened');
    expect(done!.status).toBe('Paid');

    const cancel = (id: string) => gw(sb, 'POST', `/v1/recurrences/billing/${id}/cancel`);
    const ok = await cancel(open!.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(open!.id);
    await advanceDays(sb, 10);
    const [canceled] = await billingsOf(sb, retrying);
    expect(canceled!.status).toBe('Canceled');
    // A monthly plan has no last installment: the subscription goes on.
    expect(await subscriptionStatus(sb, retrying)).toBe('Active');

    const refused = await cancel(done!.id);
    expect(refused.status).toBe(400);
    expect(firstTag(refused.body)).toBe('billingId');
    expect(JSON.stringify(refused.body)).toContain('Paid');
    const again = await cancel(open!.id);
    expect(again.status).toBe(400);
    const unknown = await cancel('nope');
    expect(unknown.status).toBe(404);
  });

  it('canceling the last billing of a plan with an end ends its subscription', async () => {
    const planId = await createPlan(sb, {
      ...monthlyPlan,
      planType: 'Custom',
      interval: 20,
      installments: 1,
      attempts: 4,
    });
    const subId = await subscribe(sb, planId, await vault(sb, INSUFFICIENT_FUNDS), 'LAST');
    const [last] = await billingsOf(sb, subId);
    expect(last!.status).toBe('Opened');
    expect(await subscriptionStatus(sb, subId)).toBe('Active');
    expect((await gw(sb, 'POST', `/v1/recurrences/billing/${last!.id}/cancel`)).status).toBe(200);
    // As when the last installment is paid or denied: nothing is left to bill.
    expect(await subscriptionStatus(sb, subId)).toBe('Canceled');
  });

  it('stops billing a Canceled subscription and refuses to reactivate it', async () => {
    const planId = await createPlan(sb);
    const subId = await subscribe(sb, planId, await vault(sb));
    const res = await gw(sb, 'POST', `/v1/recurrences/subscriptions/${subId}/status`, {
      status: 'Canceled',
    });
    expect(res.status).toBe(200);
    await advanceDays(sb, 90);
    expect(await billingsOf(sb, subId)).toHaveLength(1);
    const back = await gw(sb, 'POST', `/v1/recurrences/subscriptions/${subId}/status`, {
      status: 'Actived',
    });
    expect(back.status).toBe(400);
    expect(JSON.stringify(back.body)).toContain('final');
  });

  it('catches up in one run: every installment and retry that fell due, once', async () => {
    const monthly = await createPlan(sb, { ...monthlyPlan, trialDays: 1 });
    const ok = await subscribe(sb, monthly, await vault(sb), 'OK');
    const retrying = await createPlan(sb, { ...monthlyPlan, trialDays: 1, attempts: 4 });
    const poor = await subscribe(sb, retrying, await vault(sb, INSUFFICIENT_FUNDS), 'POOR');
    // A tick long after the fact (real time, no advance): runDue sees 100 days at once.
    const engine = new BillingEngine(sb.sandbox.ctx, sandboxVaultPort);
    const later = new Date(sb.clock.now().getTime() + 100 * DAY_MS);
    await engine.runDue(later);
    await engine.runDue(later);
    expect((await billingsOf(sb, ok)).map((b) => [b.installment, b.status])).toEqual([
      [1, 'Paid'],
      [2, 'Paid'],
      [3, 'Paid'],
      [4, 'Paid'],
    ]);
    // Due days 1, 31, 61, 91 (+ retries 2, 4, 8, 16 days later): the fourth still has one to go.
    expect((await billingsOf(sb, poor)).map((b) => b.status)).toEqual([
      'Denied',
      'Denied',
      'Denied',
      'Opened',
    ]);
  });

  it('loads the cards of a batch in one go before charging them, and charges the same', async () => {
    const plan = await createPlan(sb, { ...monthlyPlan, trialDays: 1 });
    const vaults = [await vault(sb), await vault(sb), await vault(sb)];
    const subs = [];
    for (const [i, v] of vaults.entries()) subs.push(await subscribe(sb, plan, v, `B-${i}`));
    const prefetched: string[][] = [];
    const engine = new BillingEngine(sb.sandbox.ctx, {
      ...sandboxVaultPort,
      prefetch: async (ctx, cards) => {
        prefetched.push(cards.map((c) => c.vaultId));
        // The cards are now read from the cache: gone from the table, the charges still see them.
        await sandboxVaultPort.prefetch!(ctx, cards);
        await sb.sandbox.ctx.db.deleteFrom('card_vault').execute();
      },
    });
    await engine.runDue(new Date(sb.clock.now().getTime() + DAY_MS));
    expect(prefetched).toHaveLength(1);
    expect([...prefetched[0]!].sort()).toEqual([...vaults].sort());
    for (const sub of subs) {
      expect((await billingsOf(sb, sub)).map((b) => b.status)).toEqual(['Paid']);
    }
  });

  it('subscription ids grow in the order the subscriptions were made (UUID v7)', async () => {
    const plan = await createPlan(sb);
    const card = await vault(sb);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await subscribe(sb, plan, card, `ORD-${i}`));
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });
});
