// `npm run bff`: the BFF alone (server/bff/main.ts, configured by the environment), from a
// bundle (dist/server/bff.mjs) rebuilt when a source is newer: see scripts/bundled.mjs.
import { runBundled } from './bundled.mjs';

await runBundled('bff', 'server/bff/main.ts');
