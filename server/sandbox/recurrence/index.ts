import { authorizeVaulted, findVault, prefetchVaultRows } from '../vault/service';
import type { VaultPort } from './vault-port';

export { recurrenceRoutes } from './routes';
export { BillingEngine, retryDelayDays, RETRY_DELAYS_DAYS } from './engine';

/** The sandbox card vault as recurrence uses it (CONTRACTS: `findVault`, `authorizeVaulted`). */
export const sandboxVaultPort: VaultPort = {
  find: findVault,
  prefetch: prefetchVaultRows,
  authorize: authorizeVaulted,
};
