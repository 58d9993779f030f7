import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { debitBody, plainCardInfo, type ErrorArray } from '../payment-helpers';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const payments = async () =>
  (await sb.sandbox.ctx.db.selectFrom('payments').select('payment_id').execute()).length;

describe('spec "deviceInfo.* | no (needed for 3DS)": a 3DS payment needs its device facts', () => {
  it('without deviceInfo: 400 naming deviceInfo and every needed field, nothing authorized', async () => {
    const before = await payments();
    const { deviceInfo: _d, ...body } = debitBody(plainCardInfo(sb, '4000000000002701'));
    const res = await sb.call('POST', '/v1/payments/3ds', { body });
    expect(res.status).toBe(400);
    const items = res.body as ErrorArray;
    expect(items).toHaveLength(1);
    expect(items[0]!.tag).toBe('deviceInfo');
    for (const f of ['httpAcceptBrowserValue', 'httpBrowserScreenWidth', 'userAgentBrowserValue']) {
      expect(items[0]!.description).toContain(f);
    }
    expect(await payments()).toBe(before);
  });

  it('with needed fields left out: 400 naming each of them; ipAddress stays optional', async () => {
    const body = debitBody(plainCardInfo(sb, '4000000000002503'));
    const device = body.deviceInfo as Record<string, unknown>;
    delete device.httpAcceptContent;
    delete device.httpBrowserTimeDifference;
    device.httpBrowserLanguage = '';
    const res = await sb.call('POST', '/v1/payments/3ds', { body });
    expect(res.status).toBe(400);
    expect((res.body as ErrorArray).map((i) => i.tag)).toEqual([
      'deviceInfo.httpAcceptContent',
      'deviceInfo.httpBrowserLanguage',
      'deviceInfo.httpBrowserTimeDifference',
    ]);
    // No challenge was started for it.
    const auths = await sb.sandbox.ctx.db.selectFrom('three_ds_auths').select('id').execute();
    expect(auths).toHaveLength(0);
  });

  it('with every needed field (and no ipAddress) it is authenticated', async () => {
    const res = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '4000000000002701')),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ threeDs: { status: 'AUTHENTICATION_SUCCESSFUL' } });
  });
});
