/**
 * `npm run fuzz`: every route of the BFF and the sandbox, 10,000 generated requests each
 * (FUZZ_RUNS_PER_ROUTE to change it, FUZZ_SEED to replay), then a table of the statuses each
 * route answered. Exits non-zero on the first 5xx, hang or 4xx outside the route's error shape,
 * printing the (shrunk) request that caused it.
 */
import { fuzzRoutes, statusTable, type RouteReport } from './harness';
import { startFuzzTargets } from './targets';

const runs = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 10_000);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Only the routes whose `app METHOD path` matches (e.g. `sandbox .*__sandbox`). */
const only = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;
const { targets, close } = await startFuzzTargets();
const started = performance.now();
const done: RouteReport[] = [];
let failed = false;
// Interrupted: still print what was covered.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${statusTable(done)}\n\ninterrupted after ${done.length} routes`);
    process.exit(130);
  });
}
try {
  await fuzzRoutes(targets, {
    runs,
    ...(seed !== undefined ? { seed } : {}),
    ...(only ? { only: (r) => only.test(`${r.app} ${r.method} ${r.path}`) } : {}),
    onRoute: (r) => {
      done.push(r);
      console.log(`${r.route}: ${runs} cases`);
    },
  });
} catch (err) {
  failed = true;
  const e = err as Error & { cause?: unknown };
  console.error(e.message.slice(0, 2000));
  if (e.cause)
    console.error(`cause: ${String((e.cause as Error).message ?? e.cause).slice(0, 500)}`);
} finally {
  await close();
}
console.log(`\n${statusTable(done)}`);
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `\n${done.length} routes, ${runs} cases each, ${seconds} s: ${failed ? 'FAILED' : 'no 5xx, no hang'}`,
);
process.exit(failed ? 1 : 0);
