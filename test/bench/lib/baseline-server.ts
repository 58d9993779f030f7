/**
 * The floor under the BFF, for test/bench/bff-pay.ts: a Hono app served by @hono/node-server
 * as the BFF is, doing none of the BFF's own work. Its own process, on `BASELINE_PORT`:
 *
 *   GET  /hello  Hono's hello-world.
 *   POST /pay    Parses the JSON body and forwards it to the sandbox's `POST /v1/payments`
 *                (`GATEWAY_URL`, Bearer `GATEWAY_TOKEN`) through the HTTP layer the BFF's
 *                gateway client uses (server/lib/http-exchange.ts, keep-alive), then answers
 *                `{status}` as the BFF's pay does. What any server between a shopper and the
 *                gateway costs on this stack: one more process, an HTTP hop in and one out,
 *                JSON each way; no store, no validation, no idempotency.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { exchange, keepAliveAgents } from '../../../server/lib/http-exchange';

const port = Number(process.env.BASELINE_PORT);
const gateway = `${process.env.GATEWAY_URL}/v1/payments`;
const headers = {
  accept: 'application/json',
  'content-type': 'application/json',
  authorization: `Bearer ${process.env.GATEWAY_TOKEN}`,
};
const agents = keepAliveAgents(64);

interface Authorization {
  returnCode?: string;
  paymentId?: string;
}

const app = new Hono();
app.get('/hello', (c) => c.text('Hello Hono!'));
app.post('/pay', async (c) => {
  const body: unknown = await c.req.json();
  const { status, text } = await exchange(gateway, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    agents,
  }).answer;
  const answer = (JSON.parse(text) as { paymentAuthorization?: Authorization })
    .paymentAuthorization;
  const ok = status === 200 && answer?.returnCode === '00';
  return c.json(
    { status: ok ? 'succeeded' : 'failed', paymentId: answer?.paymentId ?? null },
    ok ? 200 : 502,
  );
});

const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () =>
  console.log('baseline ready'),
);
process.on('SIGTERM', () => {
  agents.destroy();
  server.close(() => process.exit(0));
});
