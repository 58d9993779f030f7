import type { BffConfig } from '../../server/bff/config';
import type { BffDb } from '../../server/bff/db';
import { openDb, type OpenedDb } from '../../server/lib/db';
import { startBff, testDbUrl, type TestBff } from './bff';
import { startSandbox, type TestSandbox } from './sandbox';

/** Two BFF instances on one store and one sandbox, as several instances behind a balancer. */
export interface BffPair {
  sandbox: TestSandbox;
  store: OpenedDb<BffDb>;
  a: TestBff;
  b: TestBff;
  close(): Promise<void>;
}

/** Starts a sandbox, a store (SQLite in memory, or PostgreSQL) and two BFFs on it. */
export async function startBffPair(config: Partial<BffConfig> = {}): Promise<BffPair> {
  const sandbox = await startSandbox();
  const store = await openDb<BffDb>({ url: await testDbUrl(undefined) });
  const a = await startBff({ sandbox, config, deps: { db: store.db } });
  const b = await startBff({ sandbox, config, deps: { db: store.db } });
  return {
    sandbox,
    store,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await store.close();
      await sandbox.close();
    },
  };
}
