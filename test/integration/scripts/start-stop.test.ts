import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack } from '../../../scripts/start';
import { createLogger } from '../../../server/lib/logging';
import { DEVICE_INFO, encryptWithKey } from '../../support/bff';

// `npm start`'s stop (SIGINT/SIGTERM): the storefront, then the BFF, then the sandbox, each
// server refusing new requests and letting those under way finish before its app closes.
const dir = mkdtempSync(join(tmpdir(), 'stack-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = { 'content-type': 'application/json' };

describe('npm start: stopping the stack', () => {
  it('a pay under way when the stop begins gets its answer; nothing fails unhandled', async () => {
    const lines: string[] = [];
    const logger = (name: string) =>
      createLogger({ level: 'warn', name, destination: { write: (l: string) => lines.push(l) } });
    const stack = await startStack({
      dataDir: dir,
      distDir: join(dir, 'dist'),
      loggers: { bff: logger('bff'), sandbox: logger('sandbox'), demo: logger('demo') },
    });
    let closing: Promise<void> | null = null;
    try {
      const created = await fetch(`${stack.bffUrl}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${stack.merchantSecret}` },
        body: JSON.stringify({ amount: 10000, origin: stack.demoUrl }),
      });
      const session = (await created.json()) as { clientSecret: string };
      const frame = {
        ...json,
        authorization: `Bearer ${session.clientSecret}`,
        origin: stack.bffUrl,
      };
      const keyAnswer = await fetch(`${stack.bffUrl}/checkout/api/public-key`, { headers: frame });
      const { key } = (await keyAnswer.json()) as { key: string };
      // The gateway holds the payment call for 3 s: the stop begins while it waits.
      const fault = await fetch(`${stack.sandboxUrl}/__sandbox/faults`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ method: 'POST', path: '/v1/payments', count: 1, latencyMs: 3000 }),
      });
      expect(fault.status).toBe(201);
      const pay = fetch(`${stack.bffUrl}/checkout/api/pay`, {
        method: 'POST',
        headers: { ...frame, 'idempotency-key': 'idem-stack-stop-0001' },
        body: JSON.stringify({
          method: 'credit',
          installments: 1,
          encryptedCard: encryptWithKey(key, '5200000000002235'),
          cardholderName: 'MARIA SILVA',
          deviceInfo: DEVICE_INFO,
          fingerprint: crypto.randomUUID(),
        }),
      }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as { status?: string } }),
        (err: Error) => ({ status: 0, body: { status: `failed: ${err.message}` } }),
      );
      // The fault is used up once the payment call reached the gateway.
      const faults = async () => {
        const res = await fetch(`${stack.sandboxUrl}/__sandbox/faults`);
        return ((await res.json()) as { items: unknown[] }).items.length;
      };
      await expect.poll(faults, { timeout: 10_000 }).toBe(0);
      closing = stack.close();
      // A second signal (npm passes a Ctrl+C on too) finds the stop under way.
      const again = stack.close();
      const answer = await pay;
      expect(answer.status).toBe(200);
      expect(['succeeded', 'pending']).toContain(answer.body.status);
      await Promise.all([closing, again]);
      expect(lines.filter((l) => l.includes('unhandled'))).toEqual([]);
    } finally {
      await (closing ?? stack.close()).catch(() => undefined);
    }
  });
});
