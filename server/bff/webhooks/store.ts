import type { Kysely } from 'kysely';
import type { Migration } from '../../lib/db';
import type { BffKysely } from '../db';

/**
 * The durable inbox of gateway notifications, keyed by movementId: a notification is stored
 * before it is acknowledged, so a crash after the 200 loses nothing, and a redelivery of the
 * same movement is recognised and not processed twice.
 */
export type InboxTables = {
  webhook_inbox: {
    movement_id: number;
    nsu: string;
    cod_auth: string;
    installment_number: number;
    moment: string;
    type: string;
    old_value: string | null;
    new_value: string;
    /** `received` → `processed` (matched an attempt) | `unmatched` (no attempt of ours). */
    status: string;
    /** How many times the same movement was delivered again after the first. */
    duplicates: number;
    received_at: string;
    processed_at: string | null;
    attempt_id: string | null;
  };
};

export type InboxKysely = Kysely<InboxTables>;

export function inboxDb(db: BffKysely): InboxKysely {
  return db.withTables<InboxTables>() as unknown as InboxKysely;
}

export const inboxMigrations: Migration[] = [
  {
    name: 'bff_webhooks_0001_inbox',
    async up(db) {
      await db.schema
        .createTable('webhook_inbox')
        .addColumn('movement_id', 'bigint', (c) => c.primaryKey())
        .addColumn('nsu', 'varchar(100)', (c) => c.notNull())
        .addColumn('cod_auth', 'varchar(30)', (c) => c.notNull())
        .addColumn('installment_number', 'integer', (c) => c.notNull())
        .addColumn('moment', 'varchar(40)', (c) => c.notNull())
        .addColumn('type', 'varchar(40)', (c) => c.notNull())
        .addColumn('old_value', 'varchar(40)')
        .addColumn('new_value', 'varchar(40)', (c) => c.notNull())
        .addColumn('status', 'varchar(12)', (c) => c.notNull())
        .addColumn('duplicates', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('received_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('processed_at', 'varchar(40)')
        .addColumn('attempt_id', 'varchar(64)')
        .execute();
      await db.schema
        .createIndex('webhook_inbox_status')
        .on('webhook_inbox')
        .columns(['status', 'movement_id'])
        .execute();
    },
  },
];
