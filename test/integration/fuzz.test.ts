import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzRoutes } from '../fuzz/harness';
import type { FuzzTargets } from '../fuzz/routes';
import { routeTable } from '../fuzz/routes';
import { startFuzzTargets } from '../fuzz/targets';

/** Cases per route in `npm test`; `npm run fuzz` runs 10,000 per route. */
const RUNS = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 200);

let targets: FuzzTargets;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ targets, close } = await startFuzzTargets());
}, 60_000);
afterAll(() => close?.());

describe('fuzz: every route of the BFF and the sandbox', () => {
  it.each(routeTable().map((r) => `${r.app} ${r.method} ${r.path}`))(
    '%s: no 5xx, no hang, 4xx in its error shape',
    async (name) => {
      const [report] = await fuzzRoutes(targets, {
        runs: RUNS,
        only: (r) => `${r.app} ${r.method} ${r.path}` === name,
      });
      expect(report!.statuses.size).toBeGreaterThan(0);
      expect([...report!.statuses.keys()].every((s) => s < 500)).toBe(true);
    },
    120_000,
  );
});
