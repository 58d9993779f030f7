import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { webhookReceiverOf } from '../../../server/bff/webhooks/receiver';
import type { BffDb } from '../../../server/bff/db';
import { inboxDb, inboxMigrations, notificationHash } from '../../../server/bff/webhooks/store';
import { migrate, openDb } from '../../../server/lib/db';
import { startBff } from '../../support/bff';

const dir = mkdtempSync(join(tmpdir(), 'bff-inbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a notification stored but not yet processed when the BFF stopped is confirmed at the next start', async () => {
  const dbUrl = join(dir, 'bff.sqlite');
  const first = await startBff({ dbUrl });
  await webhookReceiverOf(first.bff.ctx).idle();
  // As if the process died between the 200 and the processing.
  const fields = {
    movement_id: 77,
    nsu: '555000111222',
    cod_auth: 'QWE123',
    installment_number: 1,
    moment: '2026-02-01T09:00:00.000-03:00',
    type: 'TransactionStatus',
    old_value: 'Authorized',
    new_value: 'Canceled',
  };
  await inboxDb(first.bff.ctx.db)
    .insertInto('webhook_inbox')
    .values({
      ...fields,
      status: 'received',
      duplicates: 0,
      received_at: new Date().toISOString(),
      processed_at: null,
      attempt_id: null,
      body_hash: notificationHash(fields),
      tries: 0,
      misses: 0,
      next_try_at: null,
      conflict: 0,
    })
    .execute();
  await first.close();

  const second = await startBff({ dbUrl });
  try {
    const receiver = webhookReceiverOf(second.bff.ctx);
    await receiver.idle();
    const row = await inboxDb(second.bff.ctx.db)
      .selectFrom('webhook_inbox')
      .selectAll()
      .where('movement_id', '=', 77)
      .executeTakeFirstOrThrow();
    // Tried against the gateway's ledger, which does not know the sale: nothing applied,
    // tried again later.
    expect(row).toMatchObject({ status: 'received', tries: 1 });
    expect(row.next_try_at).not.toBeNull();
    // The same movement delivered again is acknowledged, not processed a second time.
    const again = await second.request('POST', '/webhooks/gateway', {
      headers: { authorization: `Basic ${Buffer.from('gateway:gateway').toString('base64')}` },
      body: {
        movementId: 77,
        nsu: '555000111222',
        codAuth: 'QWE123',
        installmentNumber: 1,
        moment: '2026-02-01T09:00:00.000-03:00',
        type: 'TransactionStatus',
        oldValue: 'Authorized',
        newValue: 'Canceled',
      },
    });
    expect(again.status).toBe(200);
    await receiver.idle();
    const after = await inboxDb(second.bff.ctx.db)
      .selectFrom('webhook_inbox')
      .selectAll()
      .where('movement_id', '=', 77)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ duplicates: 1, tries: 1, next_try_at: row.next_try_at });
  } finally {
    await second.close();
  }
});

it('the body-hash migration keeps the notifications already stored', async () => {
  const { db, close } = await openDb<BffDb>({ url: join(dir, 'migrate.sqlite') });
  try {
    await migrate(db, [inboxMigrations[0]!]);
    const legacy = {
      movement_id: 12,
      nsu: '000000000012',
      cod_auth: 'OLD123',
      installment_number: 1,
      moment: '2026-01-05T10:00:00.000-03:00',
      type: 'TransactionStatus',
      old_value: '',
      new_value: 'Authorized',
    };
    await db
      .withTables<{ webhook_inbox: Record<string, unknown> }>()
      .insertInto('webhook_inbox')
      .values({
        ...legacy,
        status: 'processed',
        duplicates: 3,
        received_at: '2026-01-05T13:00:01.000Z',
        processed_at: '2026-01-05T13:00:02.000Z',
        attempt_id: 'pa_old',
      })
      .execute();
    await migrate(db, inboxMigrations);
    const rows = await inboxDb(db).selectFrom('webhook_inbox').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({
        ...legacy,
        status: 'processed',
        duplicates: 3,
        attempt_id: 'pa_old',
        body_hash: notificationHash(legacy),
        tries: 0,
        conflict: 0,
      }),
    ]);
  } finally {
    await close();
  }
});
