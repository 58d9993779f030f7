import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, keepAliveAgents } from '../../../server/lib/http-exchange';

// A loopback HTTP/1.1 server written on a raw socket, so the test decides exactly when a
// kept-alive connection dies: it answers the first request of each connection (keep-alive,
// no `Keep-Alive: timeout=` hint, as many proxies do) and drops the connection when a second
// request arrives on it, as a server does whose idle timeout fired just as the request came.
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function startServer(answerDelayMs = 0): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((socket: Socket) => {
    connections++;
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      if (!buffered.includes('\r\n\r\n')) return;
      buffered = '';
      if (++requests > 1) {
        socket.destroy();
        return;
      }
      setTimeout(() => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n' +
            'connection: keep-alive\r\n\r\nok',
        );
      }, answerDelayMs);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, connections: () => connections };
}

const get = (url: string, agents: ReturnType<typeof keepAliveAgents>) =>
  exchange(url, { method: 'GET', headers: {}, agents }).answer;

describe('exchange over keep-alive agents', () => {
  it('closes an idle connection before the server does: the next request gets a fresh one', async () => {
    const srv = await startServer();
    const agents = keepAliveAgents(4, 200);
    expect(await get(srv.url, agents)).toEqual({ status: 200, text: 'ok' });
    await new Promise((r) => setTimeout(r, 400));
    // Without an idle limit the request would go out on the old connection and die with it.
    expect(await get(srv.url, agents)).toEqual({ status: 200, text: 'ok' });
    expect(srv.connections()).toBe(2);
    agents.destroy();
  });

  it('reuses a connection within the idle limit', async () => {
    const srv = await startServer();
    const agents = keepAliveAgents(4, 5_000);
    await get(srv.url, agents);
    // This server drops a reused connection, which is how reuse shows here.
    await expect(get(srv.url, agents)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(srv.connections()).toBe(1);
    agents.destroy();
  });

  it('an answer slower than the idle limit still arrives (the limit is for idle sockets)', async () => {
    const srv = await startServer(600);
    const agents = keepAliveAgents(4, 200);
    expect(await get(srv.url, agents)).toEqual({ status: 200, text: 'ok' });
    agents.destroy();
  });
});
