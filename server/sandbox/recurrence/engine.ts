import { sql, type Insertable } from 'kysely';
import { inOneTransaction } from '../../lib/db';
import { uuidV7 } from '../../lib/ids';
import type { DueTask } from '../clock/scheduler';
import type { SandboxContext } from '../context';
import { MAX_PAYMENT_CENTS, reaisToCents } from '../../gateway/money';
import { endIfComplete } from './billings';
import { addDaysIso } from './common';
import type { BillingStatus, RecurrenceTables } from './store';
import type { VaultPort } from './vault-port';

/**
 * Days from a failed charge (insufficient funds, `51`) to the next try: +2, +2, +4, +8 after
 * the 1st, 2nd, 3rd and 4th failure (spec plan rule 5; for a due day 1: days 3, 5, 9, 17).
 */
export const RETRY_DELAYS_DAYS = [2, 2, 4, 8] as const;

/** Days until the next try after `failures` failed charges, or null when none is left. */
export function retryDelayDays(failures: number, attempts: number): number | null {
  if (failures < 1 || failures > attempts) return null;
  return RETRY_DELAYS_DAYS[failures - 1] ?? null;
}

/** Rows fetched per query; the engine loops until nothing due is left. */
export const BATCH_SIZE = 500;

/** Rows per multi-row INSERT (13 columns: well under SQLite's bound variables). */
const INSERT_CHUNK = 100;

/** What one round of the engine learned: whether another round may find due work. */
interface Round {
  again: boolean;
}

type DueBilling = Awaited<ReturnType<BillingEngine['dueBillings']>>[number];

interface PaidBilling {
  id: string;
  paymentId: string;
  /** The plan's last installment: the subscription may end. */
  last: boolean;
  subscriptionId: string;
}

export type ChargeOutcome =
  | { status: 'Paid'; paymentId: string }
  | { status: 'Retry'; returnCode: string }
  | { status: 'Denied'; returnCode: string; block: boolean }
  | { status: 'PaymentInvalid'; returnCode: string | null };

/**
 * What a charge result means for a billing: approved → Paid; `51` → another try while
 * attempts remain, then Denied; `46` (card canceled) → Denied and the subscription Blocked;
 * any other decline → Denied; a vault that is gone or an internal error → PaymentInvalid.
 */
export function chargeOutcome(
  result: Awaited<ReturnType<VaultPort['authorize']>>,
  failuresSoFar: number,
  attempts: number,
): ChargeOutcome {
  if (result.ok) return { status: 'Paid', paymentId: result.payment.paymentId };
  if (result.reason !== 'declined') {
    return { status: 'PaymentInvalid', returnCode: result.returnCode ?? null };
  }
  const code = result.returnCode ?? '';
  if (code === '51' && retryDelayDays(failuresSoFar + 1, attempts) !== null) {
    return { status: 'Retry', returnCode: code };
  }
  return { status: 'Denied', returnCode: code, block: code === '46' };
}

/**
 * The billing engine, a `DueTask` on the sandbox clock. Two kinds of work fall due:
 * an Active subscription whose `next_billing_at` has come (a billing is created for its next
 * installment), and a billing whose `next_attempt_at` has come (its card is charged).
 * Both instants are indexed, so `nextDueAt` is two MIN lookups whatever the volume.
 * Re-running is harmless: one billing per (subscription, installment) is a unique constraint,
 * and a charged billing no longer has a `next_attempt_at`.
 */
export class BillingEngine implements DueTask {
  readonly name = 'recurrence-billing';

  constructor(
    private readonly ctx: SandboxContext,
    private readonly vaults: VaultPort,
  ) {}

  async nextDueAt(): Promise<Date | null> {
    const db = this.ctx.db;
    const [sub, billing] = await Promise.all([
      db
        .selectFrom('recurrence_subscriptions')
        .select((eb) => eb.fn.min('next_billing_at').as('at'))
        .where('status', '=', 'Active')
        .where('next_billing_at', 'is not', null)
        .executeTakeFirst(),
      db
        .selectFrom('recurrence_billings')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('next_attempt_at', 'is not', null)
        .executeTakeFirst(),
    ]);
    const times = [sub?.at, billing?.at].filter((t): t is string => typeof t === 'string');
    if (times.length === 0) return null;
    return new Date(times.sort()[0]!);
  }

  async runDue(now: Date): Promise<void> {
    const at = now.toISOString();
    // Another round only when a batch was full or what was just written is itself due
    // (a long catch-up): a normal step costs no extra queries to find nothing left.
    for (;;) {
      const created = await this.createDueBillings(at);
      const charged = await this.chargeDueBillings(at);
      if (!created.again && !charged.again) return;
    }
  }

  /** Opens the billing of the next installment of every subscription that fell due. */
  private async createDueBillings(at: string): Promise<Round> {
    const due = await this.ctx.db
      .selectFrom('recurrence_subscriptions as s')
      .innerJoin('recurrence_plans as p', 'p.id', 's.plan_id')
      .select([
        's.id',
        's.user_name',
        's.next_installment',
        's.next_billing_at',
        'p.amount',
        'p.interval_days',
        'p.installments',
      ])
      .where('s.status', '=', 'Active')
      .where('s.next_billing_at', '<=', at)
      .orderBy('s.next_billing_at')
      .orderBy('s.id')
      .limit(BATCH_SIZE)
      .execute();
    if (due.length === 0) return { again: false };
    const nowIso = this.ctx.clock.now().toISOString();
    let again = due.length === BATCH_SIZE;
    const billings: Insertable<RecurrenceTables['recurrence_billings']>[] = [];
    // Subscriptions that move to the same next state share one UPDATE.
    const moves = new Map<string, { installment: number; nextAt: string | null; ids: string[] }>();
    for (const row of due) {
      const dueAt = row.next_billing_at!;
      const installment = row.next_installment;
      billings.push({
        id: uuidV7(this.ctx.clock.now()),
        user_name: row.user_name,
        subscription_id: row.id,
        installment,
        status: 'Opened',
        amount: row.amount,
        expire_at: dueAt,
        attempts_made: 0,
        next_attempt_at: dueAt,
        last_return_code: null,
        payment_id: null,
        created_date: nowIso,
        modified_date: nowIso,
      });
      const last = row.installments > 0 && installment >= row.installments;
      const nextAt = last ? null : addDaysIso(dueAt, row.interval_days);
      if (nextAt !== null && nextAt <= at) again = true;
      const key = `${installment}|${nextAt}`;
      const move = moves.get(key) ?? { installment, nextAt, ids: [] };
      move.ids.push(row.id);
      moves.set(key, move);
    }
    await this.ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < billings.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('recurrence_billings')
          .values(billings.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) => oc.columns(['subscription_id', 'installment']).doNothing())
          .execute();
      }
      for (const move of moves.values()) {
        await trx
          .updateTable('recurrence_subscriptions')
          .set({ next_installment: move.installment + 1, next_billing_at: move.nextAt })
          .where('id', 'in', move.ids)
          .where('next_installment', '=', move.installment)
          .execute();
      }
    });
    return { again };
  }

  /** Charges every billing whose attempt fell due, one at a time through the vault. */
  private async chargeDueBillings(at: string): Promise<Round> {
    const due = await this.dueBillings(at);
    if (due.length === 0) return { again: false };
    // One SQLite transaction per batch: each charge's payment, ledger and outbox rows and the
    // billing updates commit together (one commit instead of several per charge). A throw
    // undoes the whole batch, payments included, so the billings stay due and are charged again.
    return inOneTransaction(this.ctx.db, async () => {
      await this.vaults.prefetch?.(
        this.ctx,
        due
          .filter((b) => b.sub_status === 'Active')
          .map((b) => ({ userName: b.user_name, vaultId: b.vault_id })),
      );
      const paid: PaidBilling[] = [];
      const retryDue = await this.chargeEach(due, paid, at);
      await this.markPaid(paid);
      return { again: due.length === BATCH_SIZE || retryDue };
    });
  }

  /** Charges each billing; true when a retry it scheduled is already due at `at`. */
  private async chargeEach(due: DueBilling[], paid: PaidBilling[], at: string): Promise<boolean> {
    let retryDue = false;
    for (const b of due) {
      const nowIso = this.ctx.clock.now().toISOString();
      if (b.sub_status !== 'Active') {
        await this.finish(b.id, b.next_attempt_at, { status: 'Canceled', at: nowIso });
        continue;
      }
      let result: Awaited<ReturnType<VaultPort['authorize']>>;
      // A plan carries 12 integer digits, a payment 10 digits of cents: beyond, no payment.
      const cents = reaisToCents(b.amount);
      try {
        result =
          cents > MAX_PAYMENT_CENTS
            ? { ok: false, reason: 'error', description: 'amount: beyond what a payment carries' }
            : await this.vaults.authorize(this.ctx, {
                userName: b.user_name,
                vaultId: b.vault_id,
                amount: cents,
                referenceTransaction: b.order_number,
                billingId: b.id,
              });
      } catch (err) {
        this.ctx.logger.error(
          { err: { message: (err as Error).message }, billingId: b.id },
          'billing charge failed',
        );
        result = { ok: false, reason: 'error', description: 'charge failed' };
      }
      const outcome = chargeOutcome(result, b.attempts_made, b.attempts);
      const attemptsMade = b.attempts_made + 1;
      if (outcome.status === 'Retry') {
        const delay = retryDelayDays(attemptsMade, b.attempts)!;
        // From the scheduled instant, so retries keep to whole days after the due date.
        const nextAttempt = addDaysIso(b.next_attempt_at!, delay);
        if (nextAttempt <= at) retryDue = true;
        await this.ctx.db
          .updateTable('recurrence_billings')
          .set({
            attempts_made: attemptsMade,
            next_attempt_at: nextAttempt,
            last_return_code: outcome.returnCode,
            modified_date: nowIso,
          })
          .where('id', '=', b.id)
          .where('next_attempt_at', '=', b.next_attempt_at)
          .execute();
        continue;
      }
      if (outcome.status === 'Paid') {
        paid.push({
          id: b.id,
          paymentId: outcome.paymentId,
          last: b.installments > 0 && b.installment >= b.installments,
          subscriptionId: b.subscription_id,
        });
        continue;
      }
      await this.finish(b.id, b.next_attempt_at, {
        status: outcome.status,
        at: nowIso,
        attemptsMade,
        paymentId: null,
        returnCode: outcome.returnCode,
      });
      if (outcome.status === 'Denied' && outcome.block) {
        await this.ctx.db
          .updateTable('recurrence_subscriptions')
          .set({ status: 'Blocked', blocked_at: nowIso, vault_renewed: 0, modified_date: nowIso })
          .where('id', '=', b.subscription_id)
          .where('status', '=', 'Active')
          .execute();
      } else if (b.installments > 0 && b.installment >= b.installments) {
        await this.completeIfDone(b.subscription_id, nowIso);
      }
    }
    return retryDue;
  }

  private dueBillings(at: string) {
    return this.ctx.db
      .selectFrom('recurrence_billings as b')
      .innerJoin('recurrence_subscriptions as s', 's.id', 'b.subscription_id')
      .innerJoin('recurrence_plans as p', 'p.id', 's.plan_id')
      .select([
        'b.id',
        'b.user_name',
        'b.subscription_id',
        'b.installment',
        'b.amount',
        'b.attempts_made',
        'b.next_attempt_at',
        's.status as sub_status',
        's.vault_id',
        's.order_number',
        's.next_billing_at',
        'p.attempts',
        'p.installments',
      ])
      .where('b.next_attempt_at', '<=', at)
      .orderBy('b.next_attempt_at')
      .orderBy('b.id')
      .limit(BATCH_SIZE)
      .execute();
  }

  /** Marks approved billings Paid: one statement per chunk of the batch. */
  private async markPaid(paid: PaidBilling[]): Promise<void> {
    if (paid.length === 0) return;
    const nowIso = this.ctx.clock.now().toISOString();
    for (let i = 0; i < paid.length; i += INSERT_CHUNK) {
      const chunk = paid.slice(i, i + INSERT_CHUNK);
      const paymentIds = sql.join(
        chunk.map((p) => sql`when ${p.id} then ${p.paymentId}`),
        sql` `,
      );
      await sql`
        update recurrence_billings
        set status = 'Paid', next_attempt_at = null, modified_date = ${nowIso},
            attempts_made = attempts_made + 1, last_return_code = '00',
            payment_id = case id ${paymentIds} end
        where status = 'Opened' and id in (${sql.join(chunk.map((p) => p.id))})
      `.execute(this.ctx.db);
    }
    for (const p of paid) {
      if (p.last) await this.completeIfDone(p.subscriptionId, nowIso);
    }
  }

  private async finish(
    id: string,
    expectedNextAttempt: string | null,
    f: {
      status: BillingStatus;
      at: string;
      attemptsMade?: number;
      paymentId?: string | null;
      returnCode?: string | null;
    },
  ): Promise<void> {
    let q = this.ctx.db
      .updateTable('recurrence_billings')
      .set({
        status: f.status,
        next_attempt_at: null,
        modified_date: f.at,
        ...(f.attemptsMade !== undefined ? { attempts_made: f.attemptsMade } : {}),
        ...(f.paymentId !== undefined ? { payment_id: f.paymentId } : {}),
        ...(f.returnCode !== undefined ? { last_return_code: f.returnCode } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'Opened');
    if (expectedNextAttempt !== null) q = q.where('next_attempt_at', '=', expectedNextAttempt);
    await q.execute();
  }

  private completeIfDone(subscriptionId: string, at: string): Promise<void> {
    return endIfComplete(this.ctx, subscriptionId, at);
  }
}
