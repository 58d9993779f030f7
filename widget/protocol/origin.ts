/**
 * Which parent origin the frame takes its `init` (and so the client secret) from.
 * The BFF writes the session's origin into the frame page (`<card-form origin>`): when it is
 * there, it is the answer, provided the browser's own record of the parent
 * (`location.ancestorOrigins`, else the referrer) does not contradict it. Without it, the
 * browser's record, and last the `origin` query parameter the host adds. The BFF's CSP
 * `frame-ancestors` limits who can embed the frame in the first place.
 */
export interface OriginSources {
  sessionOrigin?: string | null | undefined;
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
  const browser = ancestor !== undefined ? originOf(ancestor) : originOf(sources.referrer);
  const session = originOf(sources.sessionOrigin);
  if (session) return browser === null || browser === session ? session : null;
  return browser ?? originOf(sources.param);
}
