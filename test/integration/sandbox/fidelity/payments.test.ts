import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import {
  creditBody,
  debitBody,
  expectFieldError,
  plainCardInfo,
  type ErrorArray,
} from '../payment-helpers';

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

// Spec, card payment with anti-fraud: "configSplit[].documentNumberBeneficiary | string | no |
// 14 | CPF/CNPJ digits only", "configSplit[].percent | decimal | no | 5,2 | 0 to 100",
// "configSplit[].type | string | no | 10 | allowed: bruto (gross), liquido (after fees)".
describe('configSplit: sub-fields optional, validated when present', () => {
  const pay = (configSplit: unknown[]) =>
    sb.call('POST', '/v1/payments', {
      body: { ...creditBody(plainCardInfo(sb, '4000000000002701')), configSplit },
    });

  it('accepts entries that leave out any of the sub-fields', async () => {
    const res = await pay([
      { documentNumberBeneficiary: '52998224725' },
      { percent: 10 },
      { type: 'liquido' },
      {},
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it.each([
    ['a CPF with a wrong check digit', { documentNumberBeneficiary: '52998224726' }],
    ['a CNPJ with a wrong check digit', { documentNumberBeneficiary: '11222333000182' }],
    ['a run of one digit', { documentNumberBeneficiary: '11111111111' }],
  ])('refuses %s naming documentNumberBeneficiary', async (_what, split) => {
    expectFieldError(await pay([split]), 400, 'configSplit.0.documentNumberBeneficiary');
  });

  it.each([
    [{ percent: 100.01 }, 'configSplit.0.percent'],
    [{ percent: -1 }, 'configSplit.0.percent'],
    [{ percent: 12.345 }, 'configSplit.0.percent'],
    [{ type: 'gross' }, 'configSplit.0.type'],
  ])('refuses %o naming %s', async (split, tag) => {
    expectFieldError(await pay([split]), 400, tag);
  });

  it('refuses splits over 100 % in all, even with sub-fields left out', async () => {
    expectFieldError(await pay([{ percent: 60 }, { percent: 40.01 }]), 400, 'configSplit');
    expect((await pay([{ percent: 60 }, { percent: 40 }])).status).toBe(200);
  });
});
