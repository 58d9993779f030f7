import type { ServerType } from '@hono/node-server';

/**
 * Stops an HTTP server within `graceMs`: no new connection from now on, idle keep-alive
 * connections closed at once and as soon as their request under way is answered, those
 * requests given the grace to finish; then every connection left (a request stalled halfway,
 * a body that stopped short) is closed, so a slow or hostile client cannot hold the stop.
 * Resolves once the server is closed.
 */
export function closeHttpServer(server: ServerType, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const http = 'closeAllConnections' in server ? server : null;
    // A keep-alive connection goes idle once its answer is sent: it would otherwise linger
    // until the client's or the server's keep-alive timeout.
    const idle = setInterval(() => http?.closeIdleConnections(), 50);
    const deadline = setTimeout(() => http?.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(deadline);
      resolve();
    });
    http?.closeIdleConnections();
  });
}
