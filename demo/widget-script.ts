import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { WidgetScript } from './views';

const ManifestSchema = z.looseObject({
  file: z.string().min(1),
  hashedFile: z.string().min(1),
  integrity: z.string().regex(/^sha(256|384|512)-[A-Za-z0-9+/=]+$/),
});

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
  const manifestPath = join(opts.distDir, 'widget', 'manifest.json');
  let cached: { mtimeMs: number; script: WidgetScript } | undefined;
  const fallback: WidgetScript = { src: `${base}/widget/card-checkout.js` };
  return () => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(manifestPath).mtimeMs;
    } catch {
      return fallback;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.script;
    const parsed = ManifestSchema.safeParse(
      (() => {
        try {
          return JSON.parse(readFileSync(manifestPath, 'utf8')) as unknown;
        } catch {
          return null;
        }
      })(),
    );
    const script: WidgetScript = parsed.success
      ? {
          src: `${base}/widget/${encodeURIComponent(basename(parsed.data.hashedFile))}`,
          integrity: parsed.data.integrity,
        }
      : fallback;
    cached = { mtimeMs, script };
    return script;
  };
}
