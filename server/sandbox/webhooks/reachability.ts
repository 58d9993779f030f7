import { connect } from 'node:net';

/** How long a webhook URL's host has to accept a connection at registration. */
export const REACHABILITY_TIMEOUT_MS = 3_000;

/**
 * The spec's webhook `url` "must be valid and reachable": reachable here means its host
 * accepts a TCP connection on the URL's port within `timeoutMs`. Nothing is sent over it,
 * so registering never triggers a delivery. Resolves null when reachable, else why not.
 */
export function unreachableReason(
  url: string,
  timeoutMs = REACHABILITY_TIMEOUT_MS,
): Promise<string | null> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | null) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(`the host did not accept a connection (${err.code ?? err.message})`),
    );
  });
}
