import { sql, type Kysely } from 'kysely';
import type { Migration } from '../../lib/db';
import { sha256Hex } from '../../lib/secrets';
import type { BffKysely } from '../db';

/**
 * The durable inbox of gateway notifications, keyed by movementId and a hash of the body: a
 * notification is stored before it is acknowledged, so a crash after the 200 loses nothing; a
 * redelivery of the same movement (same body) is recognised and not processed twice; the same
 * movementId with another body is kept beside it (`conflict`), never taken for a duplicate.
 */
export type InboxTables = {
  webhook_inbox: {
    movement_id: number;
    /** `notificationHash` of the body: the same movement delivered again hashes the same. */
    body_hash: string;
    nsu: string;
    cod_auth: string;
    installment_number: number;
    moment: string;
    type: string;
    old_value: string | null;
    new_value: string;
    /**
     * `received` (waiting to be confirmed against the gateway's ledger) → `processed`
     * (confirmed, matched an attempt) | `unmatched` (confirmed, no attempt of ours) |
     * `unverified` (the ledger never confirmed it: nothing applied).
     */
    status: string;
    /** Confirmations tried so far, and when the next one is due (null: at once). */
    tries: number;
    next_try_at: string | null;
    /**
     * Tries whose ledger was read and did not show it: only these count toward `unverified`
     * (a gateway that cannot be read proves nothing either way).
     */
    misses: number;
    /** 1 when another body came with the same movementId (both kept, each confirmed alone). */
    conflict: number;
    /** How many times the same movement was delivered again after the first. */
    duplicates: number;
    received_at: string;
    processed_at: string | null;
    attempt_id: string | null;
    /** The instance processing it now, until when (a killed instance's claim lapses). */
    claimed_by: string | null;
    claimed_until: string | null;
  };
};

export type InboxKysely = Kysely<InboxTables>;

type HashedFields = Pick<
  InboxTables['webhook_inbox'],
  | 'movement_id'
  | 'nsu'
  | 'cod_auth'
  | 'installment_number'
  | 'moment'
  | 'type'
  | 'old_value'
  | 'new_value'
>;

/** SHA-256 of a notification's fields, in a fixed order. */
export function notificationHash(n: HashedFields): string {
  return sha256Hex(
    JSON.stringify([
      Number(n.movement_id),
      n.nsu,
      n.cod_auth,
      Number(n.installment_number),
      n.moment,
      n.type,
      n.old_value ?? null,
      n.new_value,
    ]),
  );
}

/** The inbox row of a notification just received at `at`: waiting to be confirmed. */
export function receivedRow(fields: HashedFields, at: Date): InboxTables['webhook_inbox'] {
  return {
    ...fields,
    body_hash: notificationHash(fields),
    status: 'received',
    duplicates: 0,
    received_at: at.toISOString(),
    processed_at: null,
    claimed_by: null,
    claimed_until: null,
    attempt_id: null,
    tries: 0,
    misses: 0,
    next_try_at: null,
    conflict: 0,
  };
}

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
  {
    // The key becomes (movementId, body hash): a forged movementId cannot make the gateway's
    // real movement a "duplicate". Rebuilt (SQLite cannot change a primary key in place).
    name: 'bff_webhooks_0002_body_hash',
    async up(db) {
      await db.schema
        .createTable('webhook_inbox_next')
        .addColumn('movement_id', 'bigint', (c) => c.notNull())
        .addColumn('body_hash', 'varchar(64)', (c) => c.notNull())
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
        .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_try_at', 'varchar(40)')
        .addColumn('conflict', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('webhook_inbox_next_pk', ['movement_id', 'body_hash'])
        .execute();
      const inbox = db as unknown as InboxKysely;
      type OldRow = Omit<
        InboxTables['webhook_inbox'],
        'body_hash' | 'tries' | 'next_try_at' | 'conflict'
      >;
      const old = (await db
        .selectFrom('webhook_inbox')
        .selectAll()
        .execute()) as unknown as OldRow[];
      for (let i = 0; i < old.length; i += 200) {
        const rows = old.slice(i, i + 200).map((r) => ({
          ...r,
          body_hash: notificationHash(r),
          tries: 0,
          next_try_at: null,
          conflict: 0,
        }));
        // The columns of this migration's day (`misses` came with 0005).
        type RowThen = Omit<InboxTables['webhook_inbox'], 'misses'>;
        await (inbox as unknown as Kysely<{ webhook_inbox_next: RowThen }>)
          .insertInto('webhook_inbox_next')
          .values(rows)
          .execute();
      }
      await db.schema.dropTable('webhook_inbox').execute();
      await db.schema.alterTable('webhook_inbox_next').renameTo('webhook_inbox').execute();
      await db.schema
        .createIndex('webhook_inbox_status')
        .on('webhook_inbox')
        .columns(['status', 'movement_id'])
        .execute();
    },
  },
  {
    // Several BFF instances on one store: a row is processed by the one that claimed it.
    name: 'bff_webhooks_0003_claims',
    async up(db) {
      await db.schema.alterTable('webhook_inbox').addColumn('claimed_by', 'varchar(64)').execute();
      await db.schema
        .alterTable('webhook_inbox')
        .addColumn('claimed_until', 'varchar(40)')
        .execute();
    },
  },
  {
    // A payment whose answer was lost, once found, links the notifications of its sale that
    // came first (`unmatched`, payments/ledger-link.ts). Unmatched rows are the account's
    // sales made elsewhere, kept for good: without this the link read all of them. Only they
    // are indexed; a lookup by key names another status and cannot take it (see bff_0011).
    name: 'bff_webhooks_0004_unmatched_by_sale',
    async up(db) {
      await sql`create index webhook_inbox_unmatched on webhook_inbox (nsu, cod_auth) where status = 'unmatched'`.execute(
        db,
      );
    },
  },
  {
    // A notice was left `unverified` after 8 tries even when none of them could read the
    // ledger (an hour of gateway trouble dropped a genuine Canceled for good): the tries that
    // read it and did not find it are counted apart.
    name: 'bff_webhooks_0005_misses',
    async up(db) {
      await db.schema
        .alterTable('webhook_inbox')
        .addColumn('misses', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
];
