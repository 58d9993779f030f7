/**
 * Billing engine benchmark: 10,000 active monthly subscriptions, the sandbox clock advanced one
 * year (13 installments each: day 0, 30, …, 360 → 130,000 charges through the card vault).
 * Prints the wall time of the advance and the peak memory.
 *
 *   npx tsx test/bench/billing-engine.ts [subscriptions] [--spread]
 *
 * By default every subscription is created at the same instant (one scheduler step per
 * billing cycle); `--spread` creates them over 30 days so each falls due at its own instant
 * (one scheduler step per subscription and cycle, the worst case for the scheduler).
 * `--engine-only` swaps the card vault for a stub that approves at once and drives the engine
 * alone (no payments, ledger or webhooks): the engine's own cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceUsage } from 'node:process';
import { MS, OffsetClock } from '../../server/lib/clock';
import { openDb } from '../../server/lib/db';
import { createSandboxApp } from '../../server/sandbox/app';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import type { SandboxDb } from '../../server/sandbox/db';
import { createPlan } from '../../server/sandbox/recurrence/plans';
import { createSubscription } from '../../server/sandbox/recurrence/subscriptions';
import { sandboxVaultPort } from '../../server/sandbox/recurrence';
import { vaultCard } from '../../server/sandbox/vault/service';
import { BillingEngine } from '../../server/sandbox/recurrence/engine';
import type { VaultPort } from '../../server/sandbox/recurrence/vault-port';

const count = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10_000);
const spread = process.argv.includes('--spread');
const engineOnly = process.argv.includes('--engine-only');

let stubPayments = 0;
const stubVault: VaultPort = {
  find: () => Promise.resolve({}),
  authorize: () => Promise.resolve({ ok: true, payment: { paymentId: String(++stubPayments) } }),
};

async function main(): Promise<void> {
  // A file, as the sandbox runs by default: the data then does not count as process memory.
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  const { db, close } = await openDb<SandboxDb>({
    url: join(dir, 'sandbox.sqlite'),
    durability: 'process',
  });
  // A frozen base: time moves only when the scheduler moves it, so runs are repeatable.
  const start = Date.parse('2026-01-01T12:00:00Z');
  const clock = new OffsetClock(0, { now: () => new Date(start) });
  const { ctx } = await createSandboxApp({ db, publicUrl: 'http://localhost', clock });
  const client = DEFAULT_CLIENT;

  const t0 = performance.now();
  const plan = await createPlan(ctx, client, {
    name: 'Bench monthly',
    description: 'bench',
    amount: 19.9,
    planType: 'Monthly',
    paymentMethod: 'CreditCard',
  });
  if (!plan.ok) throw new Error(plan.description);
  const step = spread ? Math.floor((30 * MS.day) / count) : 0;
  for (let i = 0; i < count; i++) {
    if (engineOnly) {
      const sub = await createSubscription(ctx, stubVault, client, {
        planId: plan.value,
        vaultId: 'stub',
        orderNumber: String(i),
      });
      if (!sub.ok) throw new Error(sub.description);
      if (step) clock.advance(step);
      continue;
    }
    const v = await vaultCard(ctx, client, {
      cardInfo: {
        number: '4000000000002701',
        securityCode: '123',
        expirationMonth: '12',
        expirationYear: '39',
        cardholderName: 'BENCH',
      },
    });
    if (!v.ok) throw new Error(JSON.stringify(v.items));
    const sub = await createSubscription(ctx, sandboxVaultPort, client, {
      planId: plan.value,
      vaultId: v.vaultId,
      orderNumber: String(i),
    });
    if (!sub.ok) throw new Error(sub.description);
    if (step) clock.advance(step);
  }
  const setupMs = performance.now() - t0;

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  if (engineOnly) {
    const engine = new BillingEngine(ctx, stubVault);
    const end = clock.now().getTime() + 365 * MS.day;
    // Exclusive, as the scheduler runs its tasks: the sandbox's own engine (real vault), woken
    // by its real-time tick, must not charge the same billings meanwhile.
    await ctx.scheduler.exclusive(async () => {
      for (;;) {
        const at = await engine.nextDueAt();
        if (!at || at.getTime() > end) break;
        clock.advanceTo(at);
        await engine.runDue(clock.now());
      }
    });
  } else {
    await ctx.scheduler.advance(365 * MS.day);
  }
  const advanceMs = performance.now() - t1;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  const byStatus = await db
    .selectFrom('recurrence_billings')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const payments = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  // Idempotence: running what is due again creates nothing new.
  if (engineOnly) await new BillingEngine(ctx, stubVault).runDue(clock.now());
  else await ctx.scheduler.runDueNow();
  const again = await db
    .selectFrom('recurrence_billings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();

  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  console.log(
    `subscriptions        ${count}${spread ? ' (spread over 30 days)' : ''}${engineOnly ? ' (engine only, stub vault)' : ''}`,
  );
  console.log(`setup                ${(setupMs / 1000).toFixed(1)} s`);
  console.log(`advance 365 days     ${(advanceMs / 1000).toFixed(1)} s wall`);
  console.log(`  of which CPU       ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (user+system)`);
  console.log(`load average         ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
  console.log(
    `billings             ${byStatus.map((r) => `${r.status} ${Number(r.n)}`).join(', ')}`,
  );
  console.log(`payments recorded    ${engineOnly ? stubPayments : Number(payments.n)}`);
  console.log(`billings after rerun ${Number(again.n)}`);
  console.log(`peak rss (sampled)   ${mb(peakRss)} MB`);
  console.log(`maxRSS (process)     ${mb(resourceUsage().maxRSS * 1024)} MB`);
  await close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
