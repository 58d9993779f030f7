import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a Hono app on a free loopback port (real HTTP, no mocks). */
export function listen(app: Pick<Hono, 'fetch'>, port = 0): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server: ServerType = serve(
      { fetch: app.fetch, port, hostname: '127.0.0.1' },
      (info: AddressInfo) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              if ('closeAllConnections' in server) server.closeAllConnections();
              server.close(() => done());
            }),
        });
      },
    );
  });
}
