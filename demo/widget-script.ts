import { join } from 'node:path';
import { buildManifestReader } from '../server/lib/build-manifest';
import type { WidgetScript } from './views';

/**
 * The host script tag for the checkout page. With a build manifest, the content-hashed file
 * and its SRI hash (the browser refuses a script whose bytes changed); without one, the
 * stable name. Re-read when the manifest changes, so a rebuild needs no restart.
 */
export function widgetScriptResolver(opts: {
  bffPublicUrl: string;
  distDir: string;
}): () => WidgetScript {
  const base = opts.bffPublicUrl.replace(/\/$/, '');
  const manifest = buildManifestReader(join(opts.distDir, 'widget', 'manifest.json'));
  return () => {
    const m = manifest();
    return m
      ? { src: `${base}/widget/${encodeURIComponent(m.hashedFile)}`, integrity: m.integrity }
      : { src: `${base}/widget/card-checkout.js` };
  };
}
