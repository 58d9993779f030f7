import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../../server/lib/clock';
import { authorizeVaulted } from '../../../server/sandbox/vault/service';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { debitBody, plainCardInfo } from './payment-helpers';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { now: () => new Date('2026-03-10T12:00:00Z') };

async function pay(sb: TestSandbox, token?: string): Promise<{ paymentId: string; nsu: string }> {
  const res = await sb.call('POST', '/v1/payments/3ds', {
    body: debitBody(plainCardInfo(sb, '4000000000002701')),
    ...(token ? { token } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { paymentAuthorization: { paymentId: string; nsu: string } })
    .paymentAuthorization;
}

describe('payment identifiers', () => {
  it('NSU is sequential (the spec: "unique transaction sequential number"), across a restart', async () => {
    const dbUrl = join(dir, 'seq.sqlite');
    const first = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(0, base) } });
    const a = await pay(first);
    const b = await pay(first);
    await first.close();
    const second = await startSandbox({ dbUrl, deps: { clock: new OffsetClock(0, base) } });
    const c = await pay(second);
    await second.close();
    expect([a.nsu, b.nsu, c.nsu]).toEqual(['000000000001', '000000000002', '000000000003']);
  });

  it('paymentId (TID) is 20 digits led by the sandbox clock’s milliseconds, so later sorts later', async () => {
    const clock = new OffsetClock(0, base);
    const sb = await startSandbox({ deps: { clock } });
    try {
      const early = await pay(sb);
      clock.advance(1_800_000);
      const late = await pay(sb);
      expect(early.paymentId).toMatch(/^\d{20}$/);
      expect(early.paymentId.slice(0, 13)).toBe(String(base.now().getTime()));
      expect(late.paymentId.slice(0, 13)).toBe(String(base.now().getTime() + 1_800_000));
      expect(late.paymentId > early.paymentId).toBe(true);
      // The business clock standing still (a billing cycle charged at one instant): the ids of
      // that instant still come out in increasing order, all distinct.
      const same: string[] = [];
      for (let i = 0; i < 40; i++) same.push((await pay(sb)).paymentId);
      expect(new Set(same).size).toBe(same.length);
      expect([...same].sort()).toEqual(same);
      expect(same.every((id) => id.startsWith(late.paymentId.slice(0, 13)))).toBe(true);
    } finally {
      await sb.close();
    }
  });

  it('a reset forgets vaulted cards and starts the NSU again', async () => {
    const sb = await startSandbox();
    try {
      const res = await sb.call('POST', '/v1/cards/vault', {
        body: { cardInfo: plainCardInfo(sb, '4000000000002701') },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { vaultId } = res.body as { vaultId: string };
      const charge = () =>
        authorizeVaulted(sb.sandbox.ctx, { userName: 'sandbox', vaultId, amount: 990 });
      expect((await charge()).ok).toBe(true);
      expect((await sb.call('POST', '/__sandbox/reset', { token: null })).status).toBe(200);
      expect(await charge()).toMatchObject({ ok: false });
      expect((await pay(sb, await sb.token())).nsu).toBe('000000000001');
    } finally {
      await sb.close();
    }
  });
});
