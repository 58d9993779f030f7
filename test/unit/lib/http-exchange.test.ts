import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnswerTooLargeError,
  exchange,
  keepAliveAgents,
  MAX_ANSWER_BYTES,
} from '../../../server/lib/http-exchange';

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

describe('exchange: the size of an answer', () => {
  /** A server answering `size` bytes of `fill`, in 64 KB writes, chunked. */
  async function streaming(size: number, fill = 'x') {
    const http = await import('node:http');
    const srv = http.createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      let left = size;
      const block = Buffer.from(fill.repeat(Math.ceil(65_536 / Buffer.byteLength(fill))));
      const pump = () => {
        while (left > 0) {
          const part = block.subarray(0, Math.min(block.length, left));
          left -= part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    srv.on('clientError', () => undefined);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/`, close: () => srv.closeAllConnections() };
  }

  it('refuses an answer past its limit, 32 MB by default, instead of reading it all', async () => {
    const agents = keepAliveAgents(4);
    const big = await streaming(MAX_ANSWER_BYTES + 1_000_000);
    try {
      await expect(get(big.url, agents)).rejects.toBeInstanceOf(AnswerTooLargeError);
      const small = await streaming(300_000);
      try {
        const capped = exchange(small.url, {
          method: 'GET',
          headers: {},
          agents,
          maxBodyBytes: 100_000,
        });
        await expect(capped.answer).rejects.toMatchObject({ status: 502, limit: 100_000 });
      } finally {
        small.close();
      }
    } finally {
      big.close();
      agents.destroy();
    }
  });

  it('reads an answer within the limit whole, its UTF-8 intact across chunks', async () => {
    const agents = keepAliveAgents(4);
    const srv = await streaming(3 * 200_000, 'ção');
    try {
      const answer = await get(srv.url, agents);
      expect(answer.status).toBe(502);
      expect(answer.text.length).toBe((3 * 200_000 * 3) / 5);
      expect(/^(ção)+$/.test(answer.text)).toBe(true);
    } finally {
      srv.close();
      agents.destroy();
    }
  });
});
