import { randomUUID } from 'node:crypto';
import type { BffContext } from './context';
import { eventDeliveryOf } from './events/delivery';
import { pruneIdempotencyKeys } from './idempotency';
import { acquireLease, releaseLease } from './leases';
import { pruneDueDayReads } from './payments/first-billing-search';
import { prunePlanProofs } from './payments/plan-proof';
import { pruneAttemptLookups } from './payments/subscription-turns';
import {
  resolveUnknownAttempts,
  type ResolveOptions,
  type ResolveReport,
} from './payments/resolver';
import { endStaleChallenges, expireDueSessions } from './sessions/service';
import { recordBillingEvents } from './subscriptions/billing-events';
import { webhookReceiverOf } from './webhooks/receiver';

// The BFF's maintenance round: what must happen once across instances (led by the holder of
// a lease in the store), and what every instance does for itself.

/**
 * How long a maintenance round's lease lasts (`MAINTENANCE_LEASE`): two intervals, and at
 * least 5 s. The leader renews it every third of that while a round runs, however long the
 * round takes; a killed leader's lease passes on when it lapses, a stopped one's at once.
 */
function leaseTtl(intervalMs: number): number {
  return Math.max(2 * intervalMs, 5_000);
}

export const MAINTENANCE_LEASE = 'maintenance';

/**
 * One maintenance round: unknown payments are looked up, idempotency keys older than a day
 * pruned — by the one instance that holds the `maintenance` lease in the store (several BFFs
 * on one database run it once, not once each). Every instance then retries its webhook inbox
 * (rows there are claimed one by one). `led` says whether this instance did the round.
 */
export async function maintenanceRound(
  ctx: BffContext,
  opts: ResolveOptions & { intervalMs: number; instance: string },
): Promise<{ led: boolean; report?: ResolveReport }> {
  const ttl = leaseTtl(opts.intervalMs);
  const renew = () => acquireLease(ctx.db, MAINTENANCE_LEASE, opts.instance, ttl, ctx.clock.now());
  const led = await renew();
  let report: ResolveReport | undefined;
  if (led) {
    // A round reading many gateway pages may outlast the lease: it is renewed meanwhile.
    const heartbeat = setInterval(() => {
      renew().then(
        (held) => {
          if (!held) {
            ctx.logger.warn(
              { event: 'maintenance.lease_lost', instance: opts.instance },
              'another instance took the maintenance lease while this round ran',
            );
          }
        },
        (err: unknown) => {
          ctx.logger.warn(
            { event: 'maintenance.lease_renew_failed', err: { message: (err as Error).message } },
            'could not renew the maintenance lease',
          );
        },
      );
    }, ttl / 3);
    heartbeat.unref();
    try {
      report = await maintenanceWork(ctx, opts);
    } finally {
      clearInterval(heartbeat);
    }
  }
  webhookRetry(ctx);
  eventDeliveryOf(ctx)?.kick();
  return report ? { led, report } : { led };
}

/** The leader's part of a round, each step on its own: one failing does not stop the rest. */
async function maintenanceWork(
  ctx: BffContext,
  opts: ResolveOptions,
): Promise<ResolveReport | undefined> {
  const step = <T>(work: Promise<T>, what: string, event?: string) =>
    work.catch((err: unknown) => {
      ctx.logger.warn(
        { ...(event ? { event } : {}), err: { message: (err as Error).message } },
        what,
      );
      return undefined;
    });
  const report = await step(
    resolveUnknownAttempts(ctx, opts),
    'could not look unknown payments up at the gateway',
    'payment.resolve_failed',
  );
  await step(pruneDueDayReads(ctx.db), 'due-day search prune failed');
  await step(prunePlanProofs(ctx.db), 'plan proof prune failed');
  await step(pruneAttemptLookups(ctx.db), 'attempt look-up prune failed');
  await step(pruneIdempotencyKeys(ctx.db, ctx.clock.now()), 'idempotency prune failed');
  await step(endStaleChallenges(ctx), 'challenge timeouts failed');
  await step(expireDueSessions(ctx), 'session expiry failed');
  await step(recordBillingEvents(ctx), 'billing events failed');
  return report;
}

/**
 * The BFF's maintenance round (`maintenanceRound`), now and every `intervalMs`. Failures
 * (gateway down, store busy) are logged and tried again next round. Returns a stop function,
 * which waits for a round under way, up to `graceMs`, and gives the lease up. A round still
 * running then (a gateway answering slowly) is left as a crash would leave it: every step is
 * one that a crash may interrupt, and its lease lapses.
 */
export function startMaintenance(
  ctx: BffContext,
  opts: ResolveOptions & { intervalMs: number },
): (graceMs?: number) => Promise<void> {
  const instance = `bff_${randomUUID()}`;
  let running: Promise<unknown> | null = null;
  const round = () => {
    if (running) return;
    running = maintenanceRound(ctx, { ...opts, instance })
      .catch((err: unknown) => {
        ctx.logger.warn(
          { event: 'maintenance.failed', err: { message: (err as Error).message } },
          'the maintenance round failed; tried again next round',
        );
      })
      .finally(() => {
        running = null;
      });
  };
  round();
  const timer = setInterval(round, opts.intervalMs);
  timer.unref();
  return async (graceMs = 10_000) => {
    clearInterval(timer);
    if (running) {
      let timeout: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        running.then(() => true),
        new Promise<false>((r) => (timeout = setTimeout(() => r(false), graceMs))),
      ]);
      clearTimeout(timeout);
      if (!ended) {
        ctx.logger.warn(
          { event: 'maintenance.stop_timeout', graceMs },
          'stopping without waiting longer for the maintenance round under way; its lease lapses',
        );
        return;
      }
    }
    await releaseLease(ctx.db, MAINTENANCE_LEASE, instance).catch((err: unknown) => {
      ctx.logger.warn(
        { err: { message: (err as Error).message } },
        'could not give the maintenance lease up; it lapses',
      );
    });
  };
}

function webhookRetry(ctx: BffContext): void {
  try {
    webhookReceiverOf(ctx).kick();
  } catch {
    /* no receiver mounted (a BFF without webhooks) */
  }
}
