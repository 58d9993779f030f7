import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_INFO, encryptWithKey, MERCHANT_ORIGIN, MERCHANT_SECRET } from '../../support/bff';
import { bffProcess, storeEnv, type BffProcess } from '../../support/bff-process';
import { roundRobin, type RoundRobin } from '../../support/round-robin';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// Three BFF processes on one store behind a round-robin balancer (issue 13 §3): they behave
// as one. Every request of a test may reach a different instance.
let sb: TestSandbox;
let lb: RoundRobin;
const bffs: BffProcess[] = [];
let store: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'bff-instances-'));
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
const basic = `Basic ${Buffer.from('gateway:gateway').toString('base64')}`;

beforeAll(async () => {
  sb = await startSandbox();
  lb = await roundRobin();
  store = await storeEnv(dir);
  for (let i = 0; i < 3; i++) {
    bffs.push(
      await bffProcess({
        sandboxUrl: sb.url,
        store,
        env: {
          // The balancer is the public address; it forwards the client's address.
          BFF_PUBLIC_URL: lb.url,
          BFF_TRUST_PROXY: 'loopback',
          BFF_PAY_RATE_LIMIT: '10',
          // A killed instance's inbox claims lapse after 3 s; the maintenance round (every
          // half second) sends each instance back to the inbox, where it takes them over.
          BFF_INBOX_CLAIM_MS: '3000',
          BFF_RESOLVE_INTERVAL_MS: '500',
          LOG_LEVEL: 'warn',
        },
      }),
    );
  }
  // Started together, on an empty store.
  await Promise.all(bffs.map((b) => b.start()));
  lb.targets.push(...bffs.map((b) => b.url));
}, 120_000);
afterAll(async () => {
  for (const b of bffs) await b.close();
  await lb.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(lb.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

async function createSession(body: Record<string, unknown>, headers = {}) {
  return call(
    'POST',
    '/v1/checkout-sessions',
    { origin: MERCHANT_ORIGIN, ...body },
    {
      ...merchant,
      ...headers,
    },
  );
}

describe('three BFF instances on one store', { timeout: 120_000 }, () => {
  it('50 concurrent pays of one session, spread over the instances, make one charge', async () => {
    const created = await createSession({ amount: 7_700, referenceTransaction: 'lb-one-charge' });
    expect(created.status).toBe(201);
    const s = created.body as { id: string; clientSecret: string };
    const auth = { authorization: `Bearer ${s.clientSecret}` };
    const key = (await call('GET', '/checkout/api/public-key', undefined, auth)).body as {
      key: string;
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        call(
          'POST',
          '/checkout/api/pay',
          {
            method: 'credit',
            installments: 1,
            encryptedCard: encryptWithKey(key.key, '4000000000002701'),
            cardholderName: 'MARIA SILVA',
            deviceInfo: { ...DEVICE_INFO },
            fingerprint: randomUUID(),
          },
          // Fifty shoppers' tabs: each its own address, so no rate limit is in the way.
          {
            ...auth,
            'idempotency-key': `idem-${randomUUID()}`,
            'x-forwarded-for': `198.51.100.${i}`,
          },
        ),
      ),
    );
    expect(answers.every((a) => a.status < 500)).toBe(true);
    const succeeded = answers.filter((a) => (a.body as { status?: string }).status === 'succeeded');
    expect(succeeded).toHaveLength(1);
    const charges = await sb.sandbox.ctx.db
      .selectFrom('payments')
      .select('payment_id')
      .where('reference_transaction', 'like', 'lb-one-charge/%')
      .execute();
    expect(charges).toHaveLength(1);
  });

  it('one Idempotency-Key sent to every instance creates one session', async () => {
    const idem = `idem-lb-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        createSession(
          { amount: 1_990, referenceTransaction: 'lb-idem' },
          { 'idempotency-key': idem },
        ),
      ),
    );
    expect(answers.every((a) => a.status < 500)).toBe(true);
    const ids = new Set(
      answers.filter((a) => a.status === 201).map((a) => (a.body as { id: string }).id),
    );
    expect(ids.size).toBe(1);
  });

  it('the pay limit holds across instances', async () => {
    const s = (await createSession({ amount: 990 })).body as { clientSecret: string };
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await call(
        'POST',
        '/checkout/api/pay',
        { method: 'credit' },
        {
          authorization: `Bearer ${s.clientSecret}`,
          'idempotency-key': `idem-limit-${i}-${randomUUID()}`,
          'x-forwarded-for': '203.0.113.7',
        },
      );
      statuses.push(res.status);
    }
    expect(statuses.filter((st) => st === 429)).toHaveLength(14);
  });

  it('500 notifications over the instances are each stored and worked on once; a kill -9 loses none', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => 7_000_000 + i);
    const deliver = (movementId: number) =>
      call(
        'POST',
        '/webhooks/gateway',
        {
          movementId,
          nsu: String(movementId),
          codAuth: 'ZZ0001',
          installmentNumber: 1,
          moment: '2026-05-01T10:00:00.000-03:00',
          type: 'TransactionStatus',
          oldValue: '',
          newValue: 'Canceled',
        },
        { authorization: basic },
      );
    const first = await Promise.all(ids.slice(0, 250).map(deliver));
    // One instance dies in the middle; the balancer sends the rest to the others.
    await bffs[2]!.kill();
    const rest = await Promise.all(ids.slice(250).map(deliver));
    const statuses = [...first, ...rest].map((r) => r.status);
    expect(
      statuses.filter((st) => st !== 200),
      JSON.stringify([...first, ...rest].filter((r) => r.status !== 200).slice(0, 3)),
    ).toEqual([]);
    // The gateway's retry of one notification is a duplicate wherever it lands.
    expect((await deliver(ids[0]!)).status).toBe(200);

    const { openDb } = await import('../../../server/lib/db');
    const { db, close } = await openDb<Record<string, never>>({
      url: store.DATABASE_URL ?? store.BFF_DB!,
    });
    try {
      const rows = async () =>
        (await db
          .selectFrom('webhook_inbox' as never)
          .select(['movement_id', 'tries', 'duplicates'] as never[])
          .where('movement_id' as never, '>=', 7_000_000 as never)
          .execute()) as unknown as { movement_id: number; tries: number; duplicates: number }[];
      const end = Date.now() + 60_000;
      let seen = await rows();
      // Rows the killed instance had claimed wait for its claim to lapse, then the others
      // finish them: every row is worked on, each once.
      while (seen.filter((r) => Number(r.tries) >= 1).length < 500 && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 250));
        seen = await rows();
      }
      expect(seen).toHaveLength(500);
      expect(seen.every((r) => Number(r.tries) === 1)).toBe(true);
      expect(seen.find((r) => Number(r.movement_id) === ids[0])?.duplicates).toBe(1);
    } finally {
      await close();
    }
  });
});
