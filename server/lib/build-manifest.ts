import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';

/** What the widget build writes beside each bundle (`dist/widget`, `dist/frame`). */
const BuildManifestSchema = z.looseObject({
  file: z.string().min(1),
  hashedFile: z.string().min(1),
  integrity: z.string().regex(/^sha(256|384|512)-[A-Za-z0-9+/=]+$/),
});
export type BuildManifest = z.infer<typeof BuildManifestSchema>;

/**
 * Reads a build manifest (vite.config.ts) and keeps it until the file changes, so a rebuild
 * needs no restart. `undefined` without a valid manifest (no build yet): callers fall back to
 * the stable file name. `hashedFile` is reduced to a bare file name.
 */
export function buildManifestReader(path: string): () => BuildManifest | undefined {
  let cached: { mtimeMs: number; manifest: BuildManifest | undefined } | undefined;
  return () => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.manifest;
    let raw: unknown = null;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    } catch {
      /* a manifest being written: read again next time */
    }
    const parsed = BuildManifestSchema.safeParse(raw);
    const manifest = parsed.success
      ? { ...parsed.data, hashedFile: basename(parsed.data.hashedFile) }
      : undefined;
    cached = { mtimeMs, manifest };
    return manifest;
  };
}
