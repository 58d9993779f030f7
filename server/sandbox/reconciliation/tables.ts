import type { Migration } from '../../lib/db';
import { bankSlipMigrations, type BankSlipTables } from '../bank-slips/store';
import { webhookMigrations, type WebhookTables } from '../webhooks/store';
import { reconciliationMigrations, type ReconciliationTables } from './store';

/** Tables of the Integration API domains: bank slips, webhooks, the reconciliation ledger. */
export interface IntegrationTables extends BankSlipTables, WebhookTables, ReconciliationTables {}

export const integrationMigrations: Migration[] = [
  ...bankSlipMigrations,
  ...webhookMigrations,
  ...reconciliationMigrations,
];
