import http from 'node:http';

/**
 * The benchmarks' HTTP client: node:http over one keep-alive agent (cheaper than fetch on the
 * cores the servers share with the load generator).
 */
export interface Answer {
  status: number;
  body: string;
}

export interface BenchClient {
  /** A request with the headers as given and a body already serialized. */
  send(
    port: number,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer>;
  /** A JSON request, with `Authorization: Bearer <token>` when a token is given. */
  request(
    port: number,
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<Answer>;
  destroy(): void;
}

export function benchClient(maxSockets: number): BenchClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const once = (
    port: number,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    retried: boolean,
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers:
            body === undefined
              ? headers
              : {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(body),
                  ...headers,
                },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
        },
      );
      // A bounded wait: a stuck server fails the request instead of hanging the benchmark.
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The server closed an idle keep-alive connection as this request went out on it (its
        // keepAliveTimeout, 5 s by default): nothing was processed, so once more on a new one,
        // as Node's documentation advises.
        if (!retried && req.reusedSocket && err.code === 'ECONNRESET') {
          once(port, method, path, headers, body, true).then(resolve, reject);
        } else reject(err);
      });
      req.end(body);
    });
  const send: BenchClient['send'] = (port, method, path, headers, body) =>
    once(port, method, path, headers, body, false);
  return {
    send,
    request: (port, method, path, body, token) =>
      send(
        port,
        method,
        path,
        token ? { authorization: `Bearer ${token}` } : {},
        body === undefined ? undefined : JSON.stringify(body),
      ),
    destroy: () => agent.destroy(),
  };
}

/** The p-th percentile of ascending `sorted` (nearest rank below). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
