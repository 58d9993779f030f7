// `npm run sandbox`: the gateway sandbox alone (server/sandbox/main.ts), from a bundle
// (dist/server/sandbox.mjs) rebuilt when a source is newer: see scripts/bundled.mjs.
import { runBundled } from './bundled.mjs';

await runBundled('sandbox', 'server/sandbox/main.ts');
