import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import proxyaddr from 'proxy-addr';

/**
 * Which reverse proxies are trusted to say who the client is (`BFF_TRUST_PROXY`):
 * `false` — none, the socket's peer is the client; a number — that many hops in front of the
 * BFF; a list — the proxies' addresses or CIDR ranges (`loopback`, `linklocal` and
 * `uniquelocal` name the usual ranges), as Express's `trust proxy` takes them.
 */
export type TrustProxy = false | number | readonly string[];

/**
 * Builds the function that reads a request's client address, the way Express and `proxy-addr`
 * do: start from the socket's peer and walk `X-Forwarded-For` from the right, stepping over
 * trusted proxies only. The leftmost entries are whatever the client wrote, so they are never
 * believed unless every hop after them is trusted.
 */
export function clientAddressReader(
  trust: TrustProxy,
  /**
   * Told once, the first time a request carries `X-Forwarded-For` while no proxy is trusted:
   * behind a load balancer that is a misconfiguration in which every shopper shares the
   * balancer's address, and so its rate limits.
   */
  onUntrustedForward: () => void = () => {},
): (c: Context) => string | undefined {
  let warned = false;
  const trustFn =
    trust === false || trust === 0
      ? () => false
      : typeof trust === 'number'
        ? (_addr: string, i: number) => i < trust
        : proxyaddr.compile([...trust]);
  return (c) => {
    let peer: string | undefined;
    try {
      peer = getConnInfo(c).remote.address;
    } catch {
      peer = undefined;
    }
    if (!peer) return undefined;
    const xff = c.req.header('x-forwarded-for');
    if (trust === false || trust === 0) {
      if (!warned && xff !== undefined) {
        warned = true;
        onUntrustedForward();
      }
      return peer;
    }
    const req = {
      connection: { remoteAddress: peer },
      socket: { remoteAddress: peer },
      headers: xff !== undefined ? { 'x-forwarded-for': xff.slice(0, 2048) } : {},
    };
    const address = proxyaddr(req as never, trustFn);
    return address.length <= 64 ? address : peer;
  };
}

/**
 * Parses `BFF_TRUST_PROXY`: `false`/`0` (none), `true` (one hop: the usual single reverse
 * proxy), a hop count, or a comma-separated list of proxy addresses and CIDR ranges.
 * Returns an error message for anything else.
 */
export function parseTrustProxy(value: string): TrustProxy | { error: string } {
  const v = value.trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true') return 1;
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    return n <= 10 ? n : { error: 'a hop count must be at most 10' };
  }
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(list);
  } catch (err) {
    return {
      error: `must be false, a hop count or a list of proxy addresses/CIDRs (${(err as Error).message})`,
    };
  }
  return list;
}
