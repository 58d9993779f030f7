import type { Context, MiddlewareHandler } from 'hono';
import { NONCE, secureHeaders } from 'hono/secure-headers';

/**
 * The BFF's security headers, from Hono's `secureHeaders` (nonces included) rather than
 * strings assembled by hand. Two layers:
 * - `baselineSecurityHeaders` on every response (JSON, static files, errors, the 404): a CSP
 *   that loads nothing and lets no one frame it, COOP, CORP, Permissions-Policy, HSTS when the
 *   public URL is https. It never overwrites a header a route set for itself.
 * - `securePage` for each HTML page, with the page's own CSP: who may frame it (the session's
 *   merchant origin), where its form may post (the ACS), whether it runs a nonce'd script.
 */

/** Powerful features no BFF page uses; `payment` and WebAuthn only where a page needs them. */
const DENIED_FEATURES = {
  camera: false,
  microphone: false,
  geolocation: false,
  usb: false,
  serial: false,
  hid: false,
  bluetooth: false,
  displayCapture: false,
  browsingTopics: false,
};

const HSTS = 'max-age=31536000; includeSubDomains';

function sharedOptions(https: boolean) {
  return {
    strictTransportSecurity: https ? HSTS : false,
    referrerPolicy: 'no-referrer',
    crossOriginOpenerPolicy: 'same-origin',
    originAgentCluster: true,
    xDnsPrefetchControl: true,
    xPermittedCrossDomainPolicies: true,
    xDownloadOptions: true,
    xXssProtection: true,
    removePoweredBy: true,
  } as const;
}

/** Every response: nothing loads, nobody frames, unless the route set its own policy. */
export function baselineSecurityHeaders(publicUrl: string): MiddlewareHandler {
  const baseline = secureHeaders({
    ...sharedOptions(publicUrl.startsWith('https:')),
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
    crossOriginResourcePolicy: 'same-origin',
    xFrameOptions: 'DENY',
    permissionsPolicy: { ...DENIED_FEATURES, payment: false },
    overwrite: false,
  });
  return async (c, next) => {
    await next();
    // A page rendered by `securePage` carries its whole policy already.
    if (c.res.headers.has('Content-Security-Policy')) return;
    await baseline(c, async () => {});
  };
}

export interface PagePolicy {
  /** Origins allowed to frame the page (`'none'` when it must not be framed). */
  frameAncestors: readonly string[];
  /** The page runs an inline script under a per-response nonce. */
  script?: boolean;
  /** CSP sources (`'sha256-…'`) of the inline scripts the page may run, and no other. */
  scriptHashes?: readonly string[];
  /** The page loads its own scripts and images (`'self'`): the card form. */
  selfAssets?: boolean;
  /** Where its form posts (`'none'` by default). */
  formAction?: readonly string[];
  /** The page hosts a payment step (the card form, the 3DS launcher): `payment` and WebAuthn. */
  payment?: boolean;
}

/**
 * Renders an HTML page under its own policy. `render` gets the CSP nonce to put on its inline
 * script (empty when the policy has none). Pages are never cached.
 */
export async function securePage(
  c: Context,
  publicUrl: string,
  policy: PagePolicy,
  render: (nonce: string) => Response | Promise<Response>,
): Promise<Response> {
  const framed = !policy.frameAncestors.includes("'none'");
  const middleware = secureHeaders({
    ...sharedOptions(publicUrl.startsWith('https:')),
    // A framed page is not asked into an origin-keyed agent cluster: with the merchant on the
    // same site that forces the card form into a process of its own, ≈ 150 ms before its first
    // byte of script runs (measured, test/bench/checkout-ready.ts). Browsers already refuse
    // `document.domain` by default; the frame's CSP and frame-ancestors are unchanged.
    originAgentCluster: !framed,
    contentSecurityPolicy: {
      defaultSrc: [policy.selfAssets ? "'self'" : "'none'"],
      ...(policy.selfAssets ? { imgSrc: ["'self'", 'data:'], objectSrc: ["'none'"] } : {}),
      ...(policy.script ? { scriptSrc: [NONCE] } : {}),
      ...(policy.scriptHashes?.length
        ? { scriptSrc: [...(policy.selfAssets ? ["'self'"] : []), ...policy.scriptHashes] }
        : {}),
      baseUri: ["'none'"],
      formAction: policy.formAction?.length ? [...policy.formAction] : ["'none'"],
      frameAncestors: [...policy.frameAncestors],
    },
    // A page framed by a merchant site loads cross-origin (and under the merchant's COEP).
    crossOriginResourcePolicy: framed ? 'cross-origin' : 'same-origin',
    // frame-ancestors rules framing; X-Frame-Options cannot name an origin, so only DENY.
    xFrameOptions: framed ? false : 'DENY',
    permissionsPolicy: {
      ...DENIED_FEATURES,
      payment: policy.payment ? ['self'] : false,
      publickeyCredentialsGet: policy.payment ? ['self'] : false,
    },
  });
  await middleware(c, async () => {
    const nonce = (c.get('secureHeadersNonce' as never) as string | undefined) ?? '';
    c.res = await render(nonce);
  });
  c.res.headers.set('Cache-Control', 'no-store');
  return c.res;
}
