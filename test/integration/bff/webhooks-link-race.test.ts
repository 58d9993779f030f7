import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConcilInstallmentRow } from '../../../server/gateway/schemas';
import type * as LedgerLink from '../../../server/bff/payments/ledger-link';
import { processNotification } from '../../../server/bff/webhooks/confirm';
import { inboxDb, receivedRow, type InboxTables } from '../../../server/bff/webhooks/store';
import { updateAttempt } from '../../../server/bff/sessions/store';
import { eventsDb } from '../../../server/bff/events/store';
import { startBff, type TestBff } from '../../support/bff';
import { seedSessionWithAttempt } from '../../support/store-rows';

// A notice whose attempt another path links at the same moment: the resolver of another
// instance, the other notice of the same sale, the pay call's own answer. The notice's link
// then loses its compare-and-set; the notice still belongs to the attempt that holds its sale.

/** What runs once just before the notice's own link (the other linker committing first). */
const race = vi.hoisted(() => ({
  first: undefined as undefined | (() => Promise<void>),
  real: undefined as undefined | typeof LedgerLink.linkSaleToAttempt,
}));
vi.mock('../../../server/bff/payments/ledger-link', async (importOriginal) => {
  const real = await importOriginal<typeof LedgerLink>();
  race.real = real.linkSaleToAttempt;
  return {
    ...real,
    linkSaleToAttempt: async (...args: Parameters<typeof real.linkSaleToAttempt>) => {
      const first = race.first;
      race.first = undefined;
      if (first) await first();
      return real.linkSaleToAttempt(...args);
    },
  };
});

let t: TestBff;
beforeAll(async () => {
  t = await startBff();
});
afterAll(() => t.close());

type InboxRow = InboxTables['webhook_inbox'];
const db = () => t.bff.ctx.db;
let movement = 9_900_000;

/** A pending session whose attempt's pay answer was lost, and a `received` notice of its sale. */
async function seed(sid: string, newValue: 'Canceled' | 'Authorized') {
  await seedSessionWithAttempt(db(), sid);
  await db()
    .updateTable('checkout_sessions')
    .set({ status: 'pending' })
    .where('id', '=', sid)
    .execute();
  const nsu = String(++movement);
  const sale: ConcilInstallmentRow = {
    nsu,
    codAuth: 'AUTH01',
    installmentNumber: 1,
    installmentStatus: newValue === 'Canceled' ? 'C' : 'A',
    transactionReference: `ref-${sid}`,
    transactionPaymentIdWeb: `pay-${sid}`,
  } as ConcilInstallmentRow;
  t.bff.ctx.gateway.searchConcilByCode = async () => [sale];
  const fields = {
    movement_id: movement,
    nsu,
    cod_auth: 'AUTH01',
    installment_number: 1,
    moment: '2026-05-01T10:00:00.000-03:00',
    type: 'TransactionStatus',
    old_value: newValue === 'Canceled' ? 'Authorized' : '',
    new_value: newValue,
  };
  const row = receivedRow(fields, new Date());
  await inboxDb(db()).insertInto('webhook_inbox').values(row).execute();
  return { row, sale: { nsu, codAuth: 'AUTH01', paymentId: `pay-${sid}` } };
}

async function outcome(sid: string, row: InboxRow) {
  const notice = await inboxDb(db())
    .selectFrom('webhook_inbox')
    .select(['status', 'attempt_id'])
    .where('movement_id', '=', row.movement_id)
    .executeTakeFirstOrThrow();
  const attempt = await db()
    .selectFrom('payment_attempts')
    .select(['status', 'canceled_at'])
    .where('id', '=', `pa_${sid}`)
    .executeTakeFirstOrThrow();
  const canceledEvents = await eventsDb(db())
    .selectFrom('bff_events')
    .select('id')
    .where('type', '=', 'payment.canceled')
    .where('session_id', '=', sid)
    .execute();
  return { notice, attempt, canceledEvents: canceledEvents.length };
}

describe('a notice whose attempt another path links at the same moment', () => {
  it('a confirmed Canceled is applied when the resolver linked the attempt first', async () => {
    const sid = 'cs_race_resolver';
    const { row, sale } = await seed(sid, 'Canceled');
    // The leader's resolver read the ledger before the cancellation: it links with status A,
    // committed between this notice's read of the attempt and its own link.
    race.first = async () => {
      const linked = await race.real!(
        t.bff.ctx,
        { id: `pa_${sid}`, session_id: sid },
        { ...sale, status: 'A' },
        'resolver',
      );
      expect(linked).toBe(true);
    };
    await processNotification(t.bff.ctx, row);
    expect(race.first).toBeUndefined();
    const o = await outcome(sid, row);
    expect(o.notice).toEqual({ status: 'processed', attempt_id: `pa_${sid}` });
    expect(o.attempt.status).toBe('succeeded');
    expect(o.attempt.canceled_at).not.toBeNull();
    expect(o.canceledEvents).toBe(1);
  });

  it('the same Canceled on two instances: the losing one still applies to the attempt, once', async () => {
    const sid = 'cs_race_twin';
    const { row } = await seed(sid, 'Canceled');
    // The other instance processes its copy of the notice (same sale) first.
    race.first = () => processNotification(t.bff.ctx, { ...row, body_hash: 'other-copy' });
    await processNotification(t.bff.ctx, row);
    const o = await outcome(sid, row);
    expect(o.notice).toEqual({ status: 'processed', attempt_id: `pa_${sid}` });
    expect(o.attempt.canceled_at).not.toBeNull();
    expect(o.canceledEvents).toBe(1);
  });

  it('an Authorized notice arriving while the pay answer commits is matched to its session', async () => {
    const sid = 'cs_race_pay';
    const { row, sale } = await seed(sid, 'Authorized');
    race.first = () =>
      updateAttempt(db(), `pa_${sid}`, {
        status: 'succeeded',
        nsu: sale.nsu,
        authorization_code: sale.codAuth,
        payment_id: sale.paymentId,
        return_code: '00',
      });
    await processNotification(t.bff.ctx, row);
    const o = await outcome(sid, row);
    expect(o.notice).toEqual({ status: 'processed', attempt_id: `pa_${sid}` });
    expect(o.attempt.canceled_at).toBeNull();
    const processed = t.logs.filter(
      (l) => l.includes('"webhook.processed"') && l.includes(`"movementId":${row.movement_id}`),
    );
    expect(processed).toHaveLength(1);
    expect(JSON.parse(processed[0]!).sessionId).toBe(sid);
  });
});

// PostgreSQL only (`npm run test:postgres`): the other link's transaction holds the attempt's
// row lock while the notice's compare-and-set waits on it (SQLite has one writer at a time).
const onPostgres = /^postgres(ql)?:/.test(process.env.BFF_TEST_DATABASE_URL ?? '');
if (onPostgres) {
  it('on PostgreSQL, a Canceled whose link waited for the resolver’s commit is applied', async () => {
    const sid = 'cs_race_lock';
    const { row, sale } = await seed(sid, 'Canceled');
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db())).rows[0]!
      .s;
    const url = new URL(process.env.BFF_TEST_DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const { default: pg } = await import('pg');
    const other = new pg.Client({ connectionString: url.toString() });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(
        `update payment_attempts set status = 'succeeded', nsu = $1, authorization_code = $2,
           payment_id = $3, return_code = '00' where id = $4 and status = 'unknown'`,
        [sale.nsu, sale.codAuth, sale.paymentId, `pa_${sid}`],
      );
      await other.query(`update checkout_sessions set status = 'succeeded' where id = $1`, [sid]);
      const processing = processNotification(t.bff.ctx, row);
      // Commit once the notice's link waits on the attempt's row lock (bounded).
      let waited = false;
      for (let i = 0; i < 400 && !waited; i++) {
        const waiting = await sql`select 1 from pg_stat_activity where wait_event_type = 'Lock'
          and query like ${'update "payment_attempts"%'}`.execute(db());
        waited = waiting.rows.length > 0;
        if (!waited) await new Promise((r) => setTimeout(r, 25));
      }
      await other.query('commit');
      await processing;
      expect(waited).toBe(true);
    } finally {
      await other.end();
    }
    const o = await outcome(sid, row);
    expect(o.notice).toEqual({ status: 'processed', attempt_id: `pa_${sid}` });
    expect(o.attempt.canceled_at).not.toBeNull();
    expect(o.canceledEvents).toBe(1);
  });
}
