import { exchange, keepAliveAgents } from '../../lib/http-exchange';

/** One webhook POST: resolves the status code, rejects on no answer or a network error. */
export type WebhookTransport = (
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
) => Promise<number>;

/** Over an injected `fetch` (tests swap it to simulate an endpoint that is down). */
export function fetchTransport(f: typeof fetch): WebhookTransport {
  return async (url, headers, body, timeoutMs) => {
    const res = await f(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  };
}

/**
 * Over node:http(s) with keep-alive agents (server/lib/http-exchange.ts): on loopback about
 * three times the throughput of `fetch` (undici) for many small POSTs, which matters when the
 * outbox drains thousands.
 */
export function httpTransport(maxSockets: number): WebhookTransport & { close(): void } {
  const agents = keepAliveAgents(maxSockets);
  const send: WebhookTransport = async (url, headers, body, timeoutMs) => {
    const x = exchange(url, { method: 'POST', headers, body, agents, readBody: false });
    const timer = setTimeout(() => {
      const err = new Error(`no answer in ${timeoutMs / 1000} s`);
      err.name = 'TimeoutError';
      x.abort(err);
    }, timeoutMs);
    try {
      return (await x.answer).status;
    } finally {
      clearTimeout(timer);
    }
  };
  return Object.assign(send, { close: () => agents.destroy() });
}
