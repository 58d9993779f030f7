/**
 * Which parent origin the frame will take its init (and so the client secret's companion port)
 * from. The browser's own record wins: `location.ancestorOrigins` (Chromium, WebKit), then the
 * referrer's origin; the `origin` query parameter the host adds is the last resort, for
 * browsers without ancestorOrigins on pages that send no referrer. The BFF's CSP
 * `frame-ancestors` limits who can embed the frame in the first place.
 */
export interface OriginSources {
  ancestorOrigins?: ArrayLike<string> | undefined;
  referrer?: string | undefined;
  param?: string | null | undefined;
}

function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export function expectedParentOrigin(sources: OriginSources): string | null {
  const ancestor = sources.ancestorOrigins?.[0];
  if (ancestor) return originOf(ancestor);
  return originOf(sources.referrer) ?? originOf(sources.param);
}
