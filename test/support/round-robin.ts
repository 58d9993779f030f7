import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';

/**
 * A small round-robin load balancer on loopback, for tests of several BFF instances: each
 * request goes to the next target; one that refuses the connection (killed) is skipped.
 */
export interface RoundRobin {
  url: string;
  targets: string[];
  close(): Promise<void>;
}

export async function roundRobin(): Promise<RoundRobin> {
  const targets: string[] = [];
  /** Targets that refused a connection: left out, as a balancer's health check would. */
  const down = new Set<string>();
  let next = 0;
  const pick = (): string => {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[next++ % targets.length]!;
      if (!down.has(t)) return t;
    }
    return targets[next++ % targets.length]!;
  };
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    tries: number,
  ): void => {
    const chosen = pick();
    const target = new URL(chosen);
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      down.add(chosen);
      if (tries + 1 < targets.length) forward(req, res, body, tries + 1);
      else if (!res.headersSent) res.writeHead(502).end();
    });
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
