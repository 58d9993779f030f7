import { sql, type Kysely } from 'kysely';
import type { Migration } from '../lib/db';
import { authMigrations, type AuthTables } from './auth/store';
import { callbackMigrations, type CallbackTables } from './callbacks/store';
import { clockMigrations, type ClockTables } from './clock/store';
import { keysMigrations, type KeysTables } from './keys/store';
import { paymentsMigrations, type PaymentsTables } from './payments/store';
import { threeDsMigrations, type ThreeDsTables } from './three-ds/store';
import { pendingPaymentsMigrations, type PendingPaymentsTables } from './three-ds/pending-payments';
import { vaultMigrations, type VaultTables } from './vault/store';
import { refundsMigrations, type RefundsTables } from './refunds/store';
import { recurrenceMigrations, type RecurrenceTables } from './recurrence/store';
import { integrationMigrations, type IntegrationTables } from './reconciliation/tables';

/**
 * The sandbox database: every domain contributes its tables and its migrations here.
 * Add a domain by extending `SandboxDb` and appending its migrations to `sandboxMigrations`.
 */
export interface SandboxDb
  extends
    AuthTables,
    CallbackTables,
    ClockTables,
    IntegrationTables,
    KeysTables,
    PaymentsTables,
    PendingPaymentsTables,
    ThreeDsTables,
    VaultTables,
    RefundsTables,
    RecurrenceTables {}

export type SandboxKysely = Kysely<SandboxDb>;

export const sandboxMigrations: Migration[] = [
  ...clockMigrations,
  ...authMigrations,
  ...integrationMigrations,
  ...keysMigrations,
  ...paymentsMigrations,
  ...threeDsMigrations,
  ...pendingPaymentsMigrations,
  ...vaultMigrations,
  ...refundsMigrations,
  ...recurrenceMigrations,
  ...callbackMigrations,
];

/** Tables that `POST /__sandbox/reset` keeps: clients' keys and the bookkeeping. */
export const RESET_KEEP_TABLES = new Set(['_migrations', '_migrations_lock', 'card_keys']);

/** Wipes every table but the kept ones (SQLite: the sandbox store is SQLite). */
export async function wipeData(db: SandboxKysely): Promise<void> {
  const tables = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
  `.execute(db);
  await db.transaction().execute(async (trx) => {
    for (const { name } of tables.rows) {
      if (RESET_KEEP_TABLES.has(name)) continue;
      await sql`delete from ${sql.table(name)}`.execute(trx);
    }
  });
}
