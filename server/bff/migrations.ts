import type { Migration } from '../lib/db';
import { bffMigrations } from './db';
import { rateLimitMigrations } from './http/rate-limits';
import { leaseMigrations } from './leases';
import { inboxMigrations } from './webhooks/store';
import { eventMigrations } from './events/store';
import { attemptLookupMigrations } from './payments/subscription-turns';

/**
 * Every migration of the BFF's store, in the one order they run in (`createBffApp`, before
 * anything reads the store; see server/lib/migrate.ts for several instances starting at once).
 * The webhook inbox's come last: they used to run when the receiver was built, after the rest.
 */
export const BFF_MIGRATIONS: readonly Migration[] = [
  ...bffMigrations,
  ...inboxMigrations,
  ...leaseMigrations,
  ...rateLimitMigrations,
  ...eventMigrations,
  ...attemptLookupMigrations,
];
