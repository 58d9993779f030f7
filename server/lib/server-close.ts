import type { ServerType } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How to stop `server` (watched from now on: make it right after the server). Stopping within
 * `graceMs`: no new connection from then on, idle keep-alive connections closed at once and each
 * as soon as its answer is sent; once the grace is over, every connection whose request is not
 * running is closed (idle, or a request whose headers or body are still arriving: a slow or
 * hostile client cannot hold the stop). A running request (it arrived whole, its handler has
 * not answered) is closed too, unless `waitForRunning`: then it is still answered, however long
 * its handler takes (a pay waiting on the gateway). Resolves once the server is closed.
 */
export function httpServerStopper(
  server: ServerType,
  opts: { waitForRunning: boolean },
): (graceMs: number) => Promise<void> {
  if (!('closeAllConnections' in server)) {
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const http = server;
  const sockets = new Set<Socket>();
  const exchanges = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>();
  http.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  http.on('request', (req: IncomingMessage, res: ServerResponse) =>
    exchanges.set(req.socket, { req, res }),
  );
  // Running: the request arrived whole (its handler has all it needs) and is not answered yet.
  const running = (socket: Socket) => {
    const exchange = exchanges.get(socket);
    return !!exchange && exchange.req.complete && !exchange.res.writableFinished;
  };
  const cutStalled = () => {
    for (const socket of sockets) if (!opts.waitForRunning || !running(socket)) socket.destroy();
  };
  return (graceMs) =>
    new Promise<void>((resolve) => {
      // A keep-alive connection goes idle once its answer is sent: it would otherwise linger
      // until the client's or the server's keep-alive timeout. After the grace, a connection
      // whose answer was sent is cut too, before it can start another request.
      let sweep = () => http.closeIdleConnections();
      const tick = setInterval(() => sweep(), 50);
      const deadline = setTimeout(() => {
        sweep = cutStalled;
        sweep();
      }, graceMs);
      http.close(() => {
        clearInterval(tick);
        clearTimeout(deadline);
        resolve();
      });
      http.closeIdleConnections();
    });
}
