import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_MAX_BODY_BYTES } from '../../../server/sandbox/app';
import { clockOffsetNotice } from '../../../server/sandbox/clock/store';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { creditBody, encryptCard, publicKey } from './payment-helpers';

let sb: TestSandbox;
let pem: string;
beforeAll(async () => {
  sb = await startSandbox();
  pem = await publicKey(sb);
});
afterAll(() => sb.close());

const control = (path: string, body?: unknown) =>
  sb.call('POST', `/__sandbox${path}`, { token: null, ...(body ? { body } : {}) });

describe('two clocks: security windows on real time, business time on the sandbox clock', () => {
  it('accepts a card encrypted by a real browser after the sandbox clock was advanced', async () => {
    expect((await control('/clock/advance', { days: 45 })).status).toBe(200);
    const encryptedCard = encryptCard(
      pem,
      {
        number: '4000000000002701',
        expirationYear: String((new Date().getUTCFullYear() + 8) % 100),
      },
      { timestamp: Date.now() },
    );
    const res = await sb.call('POST', '/v1/payments', {
      body: creditBody({ cardholderName: 'MARIA', encryptedCard }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // A replay is still refused: the nonce memory runs on real time too.
    const replay = await sb.call('POST', '/v1/payments', {
      body: creditBody({ cardholderName: 'MARIA', encryptedCard }),
    });
    expect(replay.status).toBe(400);
    // And a ciphertext stamped at the (advanced) business date is from the future.
    const businessStamped = encryptCard(
      pem,
      {
        number: '4000000000002701',
        expirationYear: String((new Date().getUTCFullYear() + 8) % 100),
      },
      { timestamp: sb.clock.now().getTime() },
    );
    const future = await sb.call('POST', '/v1/payments', {
      body: creditBody({ cardholderName: 'MARIA', encryptedCard: businessStamped }),
    });
    expect(JSON.stringify(future.body)).toContain('in the future');
  });

  it('POST /__sandbox/clock/reset brings the clock back to real time and keeps the data', async () => {
    const before = await sb.call('GET', '/v1/refund/list', {});
    const ahead = await sb.call('GET', '/__sandbox/clock', { token: null });
    expect((ahead.body as { offsetMs: number }).offsetMs).toBeGreaterThan(0);
    expect(clockOffsetNotice(sb.clock.offset, sb.clock.now())).toMatch(/45 d 00:00:00 ahead/);
    const reset = await control('/clock/reset');
    expect(reset.status).toBe(200);
    expect(Math.abs(Date.parse((reset.body as { now: string }).now) - Date.now())).toBeLessThan(
      60_000,
    );
    expect(sb.clock.offset).toBe(0);
    expect(clockOffsetNotice(sb.clock.offset, sb.clock.now())).toBeNull();
    // The payment made above is still there (a reset of the clock is not a reset of the data).
    const after = await sb.call('GET', '/v1/refund/list', {});
    expect(after.status).toBe(before.status);
    const pays = await sb.sandbox.ctx.db
      .selectFrom('payments' as never)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number((pays as { n: number }).n)).toBeGreaterThan(0);
  });
});

describe('body limit', () => {
  it('refuses a body over the limit with 413 before reading it all, chunked too', async () => {
    const big = 'a'.repeat(SANDBOX_MAX_BODY_BYTES + 1);
    const sized = await sb.call('POST', '/api/auth/token', { token: null, body: big });
    expect(sized.status).toBe(413);
    expect(sized.body).toEqual([{ tag: 'body', description: expect.any(String) }]);
    let sent = 0;
    const res = await fetch(`${sb.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
      body: new ReadableStream({
        pull(ctl) {
          if (sent > 5 * 1024 * 1024) return ctl.close();
          sent += 64 * 1024;
          ctl.enqueue(new Uint8Array(64 * 1024).fill(0x61));
        },
      }),
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});
