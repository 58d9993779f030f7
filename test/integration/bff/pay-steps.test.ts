import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { isPostgres } from '../../../server/lib/db';
import { startBff, type TestBff } from '../../support/bff';

// Each step of a pay commits as one transaction (server/bff/atomic.ts): when a write of a
// step fails, none of that step's writes stay. A database trigger makes one insert fail.

let t: TestBff;
beforeAll(async () => {
  t = await startBff();
});
afterAll(() => t.close());
afterEach(() => dropFailure());

const db = () => t.bff.ctx.db;

/** Makes every insert into `table` fail, as a full disk or a lost connection would. */
async function failInsertsInto(table: 'payment_attempts' | 'bff_events'): Promise<void> {
  if (isPostgres(db())) {
    await sql`create or replace function fail_insert() returns trigger as $$
      begin raise exception 'injected failure'; end $$ language plpgsql`.execute(db());
    await sql`create trigger fail_insert before insert on ${sql.table(table)}
      for each row execute function fail_insert()`.execute(db());
  } else {
    await sql`create trigger fail_insert before insert on ${sql.table(table)}
      begin select raise(abort, 'injected failure'); end`.execute(db());
  }
  failing = table;
}

let failing: string | null = null;
async function dropFailure(): Promise<void> {
  if (!failing) return;
  if (isPostgres(db())) {
    await sql`drop trigger if exists fail_insert on ${sql.table(failing)}`.execute(db());
  } else {
    await sql`drop trigger if exists fail_insert`.execute(db());
  }
  failing = null;
}

const sessionRow = (id: string) =>
  db().selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attemptsOf = (id: string) =>
  db().selectFrom('payment_attempts').selectAll().where('session_id', '=', id).execute();

describe('a pay whose step fails midway leaves nothing half-written', () => {
  it('the claim and its attempt: no session left processing without an attempt', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    await failInsertsInto('payment_attempts');
    const failed = await t.pay(s.clientSecret, body);
    expect(failed.status).toBe(500);
    // Without one transaction the session stayed `processing` with no attempt behind it: no
    // resolver could explain it and every later pay answered 409.
    expect((await sessionRow(s.id)).status).toBe('open');
    expect(await attemptsOf(s.id)).toHaveLength(0);

    await dropFailure();
    const paid = await t.pay(s.clientSecret, body);
    expect(paid.status).toBe(200);
    expect((paid.body as PayResult).status).toBe('succeeded');
  });

  it('the outcome and its event: a charge whose outcome cannot be written waits, pending', async () => {
    const s = await t.createSession();
    const body = await t.payBody(s.clientSecret, '4000000000002701', { method: 'credit' });
    await failInsertsInto('bff_events');
    const failed = await t.pay(s.clientSecret, body);
    expect(failed.status).toBe(500);
    // The gateway charged, but the outcome (attempt, session, event) could not commit: the
    // session waits `pending` (no second charge) with its attempt `unknown`, for the resolver
    // to confirm against the gateway; never `succeeded` without the merchant's event.
    const [attempt] = await attemptsOf(s.id);
    expect(attempt?.status).toBe('unknown');
    expect((await sessionRow(s.id)).status).toBe('pending');
    await dropFailure();
    const again = await t.pay(s.clientSecret, await t.payBody(s.clientSecret, '4000000000002701'));
    expect(again.status).toBe(409);
  });
});
