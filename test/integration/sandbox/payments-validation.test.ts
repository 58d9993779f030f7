import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import {
  creditBody,
  debitBody,
  encryptCard,
  expectFieldError,
  plainCardInfo,
  publicKey,
} from './payment-helpers';

let sb: TestSandbox;
let pem: string;
beforeAll(async () => {
  sb = await startSandbox();
  pem = await publicKey(sb);
});
afterAll(() => sb.close());

type Patch = (b: Record<string, Record<string, unknown>>) => void;

const card = () => plainCardInfo(sb, '4000000000002701');

describe('authorization on every payment route', () => {
  const routes: [string, string][] = [
    ['GET', '/v1/cards/public-key'],
    ['POST', '/v1/cards/vault'],
    ['POST', '/v1/payments'],
    ['POST', '/v1/payments/3ds'],
    ['POST', '/v1/payments/3ds/validate'],
    ['GET', '/v1/refund/list'],
  ];
  it.each(routes)(
    '%s %s: 401 without a token, with a wrong scheme, with an expired token',
    async (method, path) => {
      const body = method === 'POST' ? {} : undefined;
      const none = await sb.call(method, path, { token: null, body });
      expectFieldError(none, 401, 'Authorization');
      const t = await sb.token();
      const basic = await sb.call(method, path, {
        token: null,
        body,
        headers: { authorization: `Basic ${t}` },
      });
      expectFieldError(basic, 401, 'Authorization');
      const integration = await sb.token('integration');
      expectFieldError(
        await sb.call(method, path, { token: integration, body }),
        401,
        'Authorization',
      );
    },
  );
});

describe('expired tokens', () => {
  it('an expired token is refused', async () => {
    const own = await startSandbox();
    const t = await own.token();
    own.realClock.advance(61 * 60_000);
    const res = await own.call('GET', '/v1/cards/public-key', { token: t });
    expectFieldError(res, 401, 'Authorization');
    expect(JSON.stringify(res.body)).toContain('expired');
    await own.close();
  });
});

describe('POST /v1/payments field rules', () => {
  const cases: [string, Patch, string][] = [
    ['transactionType', (b) => (b.payment!.transactionType = 'debit'), 'payment.transactionType'],
    ['amount 11 digits', (b) => (b.payment!.amount = 10_000_000_000), 'payment.amount'],
    ['amount zero', (b) => (b.payment!.amount = 0), 'payment.amount'],
    ['amount fraction', (b) => (b.payment!.amount = 10.5), 'payment.amount'],
    ['amount string', (b) => (b.payment!.amount = '100'), 'payment.amount'],
    ['productType enum', (b) => (b.payment!.productType = 'parcelado'), 'payment.productType'],
    ['installments 3 digits', (b) => (b.payment!.installments = 100), 'payment.installments'],
    ['avista with 3', (b) => (b.payment!.installments = 3), 'payment.installments'],
    [
      'lojista with 1',
      (b) => {
        b.payment!.productType = 'lojista';
      },
      'payment.installments',
    ],
    [
      'referenceTransaction 51',
      (b) => ((b as Record<string, unknown>).referenceTransaction = 'r'.repeat(51)),
      'referenceTransaction',
    ],
    [
      'urlCallBack 501',
      (b) => ((b as Record<string, unknown>).urlCallBack = 'u'.repeat(501)),
      'urlCallBack',
    ],
    [
      'urlCallBack with credentials',
      (b) => ((b as Record<string, unknown>).urlCallBack = 'https://shop:s3cret@m.example/cb'),
      'urlCallBack',
    ],
    [
      'codeAntiFraud guid',
      (b) => (b.sellerInfo!.codeAntiFraud = 'not-a-guid'),
      'sellerInfo.codeAntiFraud',
    ],
    [
      'cardholderName 31',
      (b) => (b.cardInfo!.cardholderName = 'N'.repeat(31)),
      'cardInfo.cardholderName',
    ],
    ['cardholderName missing', (b) => delete b.cardInfo!.cardholderName, 'cardInfo.cardholderName'],
    ['securityCode 5', (b) => (b.cardInfo!.securityCode = '12345'), 'cardInfo.securityCode'],
    ['brand enum', (b) => (b.cardInfo!.brand = 'diners'), 'cardInfo.brand'],
    ['brand mismatch', (b) => (b.cardInfo!.brand = 'elo'), 'cardInfo.brand'],
    ['expirationMonth 3', (b) => (b.cardInfo!.expirationMonth = '012'), 'cardInfo.expirationMonth'],
    ['expirationYear 3', (b) => (b.cardInfo!.expirationYear = '029'), 'cardInfo.expirationYear'],
    [
      'past expiry',
      (b) => ((b.cardInfo!.expirationMonth = '01'), (b.cardInfo!.expirationYear = '20')),
      'cardInfo.expirationYear',
    ],
    ['non-Luhn number', (b) => (b.cardInfo!.number = '4000000000002702'), 'cardInfo.number'],
    ['unknown brand', (b) => (b.cardInfo!.number = '6011000000000004'), 'cardInfo.number'],
    ['amex cvv 3', (b) => (b.cardInfo!.number = '340000000002708'), 'cardInfo.securityCode'],
    [
      'encryptedCard 2049',
      (b) => (b.cardInfo!.encryptedCard = 'A'.repeat(2049)),
      'cardInfo.encryptedCard',
    ],
    ['no card at all', (b) => delete b.cardInfo!.number, 'cardInfo.encryptedCard'],
    [
      'customer.documentType enum',
      (b) => ((b as Record<string, unknown>).customer = { documentType: 'rg' }),
      'customer.documentType',
    ],
    [
      'customer.documentNumber 21',
      (b) => ((b as Record<string, unknown>).customer = { documentNumber: '1'.repeat(21) }),
      'customer.documentNumber',
    ],
    [
      'customer.firstName 61',
      (b) => ((b as Record<string, unknown>).customer = { firstName: 'f'.repeat(61) }),
      'customer.firstName',
    ],
    [
      'customer.email 256',
      (b) => ((b as Record<string, unknown>).customer = { email: 'e'.repeat(256) }),
      'customer.email',
    ],
    [
      'customer.phoneNumber 16',
      (b) => ((b as Record<string, unknown>).customer = { phoneNumber: '1'.repeat(16) }),
      'customer.phoneNumber',
    ],
    [
      'customer.mobilePhoneNumber 26',
      (b) => ((b as Record<string, unknown>).customer = { mobilePhoneNumber: '1'.repeat(26) }),
      'customer.mobilePhoneNumber',
    ],
    [
      'customer.city 51',
      (b) => ((b as Record<string, unknown>).customer = { city: 'c'.repeat(51) }),
      'customer.city',
    ],
    [
      'customer.state 3',
      (b) => ((b as Record<string, unknown>).customer = { state: 'SPX' }),
      'customer.state',
    ],
    [
      'customer.zipCode 11',
      (b) => ((b as Record<string, unknown>).customer = { zipCode: '1'.repeat(11) }),
      'customer.zipCode',
    ],
    [
      'customer.ipAddress 49',
      (b) => ((b as Record<string, unknown>).customer = { ipAddress: '1'.repeat(49) }),
      'customer.ipAddress',
    ],
    [
      'customer.country 3',
      (b) => ((b as Record<string, unknown>).customer = { country: 'BRA' }),
      'customer.country',
    ],
    [
      'customer.lastName 61',
      (b) => ((b as Record<string, unknown>).customer = { lastName: 'l'.repeat(61) }),
      'customer.lastName',
    ],
    [
      'customer.address 61',
      (b) => ((b as Record<string, unknown>).customer = { address: 'a'.repeat(61) }),
      'customer.address',
    ],
    [
      'customer.complement 61',
      (b) => ((b as Record<string, unknown>).customer = { complement: 'c'.repeat(61) }),
      'customer.complement',
    ],
    [
      'numberToken only',
      (b) => (b.cardInfo = { cardholderName: 'A', numberToken: 'tok' }),
      'cardInfo.numberToken',
    ],
    [
      'split document',
      (b) =>
        ((b as Record<string, unknown>).configSplit = [
          { documentNumberBeneficiary: '123', percent: 10, type: 'bruto' },
        ]),
      'configSplit.0.documentNumberBeneficiary',
    ],
    [
      'split percent 101',
      (b) =>
        ((b as Record<string, unknown>).configSplit = [
          { documentNumberBeneficiary: '12345678909', percent: 101, type: 'bruto' },
        ]),
      'configSplit.0.percent',
    ],
    [
      'split percent 3 decimals',
      (b) =>
        ((b as Record<string, unknown>).configSplit = [
          { documentNumberBeneficiary: '12345678909', percent: 1.125, type: 'bruto' },
        ]),
      'configSplit.0.percent',
    ],
    [
      'split type enum',
      (b) =>
        ((b as Record<string, unknown>).configSplit = [
          { documentNumberBeneficiary: '12345678909', percent: 10, type: 'net' },
        ]),
      'configSplit.0.type',
    ],
    [
      'split sum over 100',
      (b) =>
        ((b as Record<string, unknown>).configSplit = [
          { documentNumberBeneficiary: '12345678909', percent: 60, type: 'bruto' },
          { documentNumberBeneficiary: '11222333000181', percent: 41, type: 'bruto' },
        ]),
      'configSplit',
    ],
  ];
  it.each(cases)('%s → 400 naming the field', async (_name, patch, tag) => {
    const body = creditBody(card()) as unknown as Record<string, Record<string, unknown>>;
    patch(body);
    const res = await sb.call('POST', '/v1/payments', { body });
    expectFieldError(res, 400, tag);
  });

  it('accepts installments with lojista and a valid split', async () => {
    const body = {
      ...creditBody(card(), { productType: 'lojista', installments: 6 }),
      configSplit: [
        { documentNumberBeneficiary: '12345678909', percent: 60.5, type: 'bruto' },
        { documentNumberBeneficiary: '11222333000181', percent: 39.5, type: 'liquido' },
      ],
    };
    const res = await sb.call('POST', '/v1/payments', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('answers 400 to malformed JSON and 415 to a form body', async () => {
    expectFieldError(await sb.call('POST', '/v1/payments', { body: '{"payment":' }), 400, 'body');
    const form = await sb.call('POST', '/v1/payments', {
      body: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectFieldError(form, 415, 'content-type');
  });
});

describe('POST /v1/payments/3ds field rules', () => {
  const cases: [string, Patch, string][] = [
    ['transactionType', (b) => (b.payment!.transactionType = 'credit'), 'payment.transactionType'],
    ['productType enum', (b) => (b.payment!.productType = 'credito'), 'payment.productType'],
    ['debito with 2', (b) => (b.payment!.installments = 2), 'payment.installments'],
    ['code3DS 37', (b) => (b.sellerInfo!.code3DS = 'c'.repeat(37)), 'sellerInfo.code3DS'],
    ['code3DS missing', (b) => delete b.sellerInfo!.code3DS, 'sellerInfo.code3DS'],
    [
      'urlSite3DS 2049',
      (b) => (b.sellerInfo!.urlSite3DS = 'u'.repeat(2049)),
      'sellerInfo.urlSite3DS',
    ],
    [
      'urlSite3DS not a URL',
      (b) => (b.sellerInfo!.urlSite3DS = 'my shop'),
      'sellerInfo.urlSite3DS',
    ],
    [
      'urlSite3DS relative',
      (b) => (b.sellerInfo!.urlSite3DS = '/checkout'),
      'sellerInfo.urlSite3DS',
    ],
    [
      'httpAcceptBrowserValue 256',
      (b) => (b.deviceInfo!.httpAcceptBrowserValue = 'a'.repeat(256)),
      'deviceInfo.httpAcceptBrowserValue',
    ],
    [
      'httpAcceptContent 257',
      (b) => (b.deviceInfo!.httpAcceptContent = 'a'.repeat(257)),
      'deviceInfo.httpAcceptContent',
    ],
    [
      'httpBrowserLanguage 9',
      (b) => (b.deviceInfo!.httpBrowserLanguage = 'pt-BR-xyz'),
      'deviceInfo.httpBrowserLanguage',
    ],
    [
      'httpBrowserJavaEnabled',
      (b) => (b.deviceInfo!.httpBrowserJavaEnabled = 'yes'),
      'deviceInfo.httpBrowserJavaEnabled',
    ],
    [
      'httpBrowserColorDepth 4',
      (b) => (b.deviceInfo!.httpBrowserColorDepth = 1024),
      'deviceInfo.httpBrowserColorDepth',
    ],
    [
      'httpBrowserScreenHeight 5',
      (b) => (b.deviceInfo!.httpBrowserScreenHeight = 10000),
      'deviceInfo.httpBrowserScreenHeight',
    ],
    [
      'httpBrowserScreenWidth 5',
      (b) => (b.deviceInfo!.httpBrowserScreenWidth = '12345'),
      'deviceInfo.httpBrowserScreenWidth',
    ],
    [
      'httpBrowserTimeDifference 5',
      (b) => (b.deviceInfo!.httpBrowserTimeDifference = 12345),
      'deviceInfo.httpBrowserTimeDifference',
    ],
    [
      'userAgentBrowserValue 256',
      (b) => (b.deviceInfo!.userAgentBrowserValue = 'a'.repeat(256)),
      'deviceInfo.userAgentBrowserValue',
    ],
    ['non-Luhn', (b) => (b.cardInfo!.number = '5200000000002236'), 'cardInfo.number'],
  ];
  it.each(cases)('%s → 400 naming the field', async (_name, patch, tag) => {
    const body = debitBody(card()) as unknown as Record<string, Record<string, unknown>>;
    patch(body);
    expectFieldError(await sb.call('POST', '/v1/payments/3ds', { body }), 400, tag);
  });

  it('accepts debit lojista with installments and avista with one', async () => {
    for (const payment of [
      { productType: 'lojista', installments: 3 },
      { productType: 'avista', installments: 1 },
    ]) {
      const res = await sb.call('POST', '/v1/payments/3ds', { body: debitBody(card(), payment) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
});

describe('encrypted cards', () => {
  const now = () => sb.realClock.now().getTime();
  const pay = (encryptedCard: string) =>
    sb.call('POST', '/v1/payments', {
      body: creditBody({ cardholderName: 'MARIA', encryptedCard }),
    });

  it('refuses a stale, a future and a replayed ciphertext', async () => {
    const stale = encryptCard(
      pem,
      { number: '4000000000002701' },
      { timestamp: now() - 16 * 60_000 },
    );
    expect(
      expectFieldError(await pay(stale), 400, 'cardInfo.encryptedCard')[0]!.description,
    ).toContain('15 minutes');
    const future = encryptCard(
      pem,
      { number: '4000000000002701' },
      { timestamp: now() + 6 * 60_000 },
    );
    expectFieldError(await pay(future), 400, 'cardInfo.encryptedCard');
    const fresh = encryptCard(
      pem,
      { number: '4000000000002701' },
      { timestamp: now() - 14 * 60_000 },
    );
    expect((await pay(fresh)).status).toBe(200);
    const replay = await pay(fresh);
    expect(expectFieldError(replay, 400, 'cardInfo.encryptedCard')[0]!.description).toContain(
      'already used',
    );
    // The same nonce in a new ciphertext is a replay too.
    const nonce = 'abcdef0123456789';
    expect(
      (await pay(encryptCard(pem, { number: '4000000000002701' }, { timestamp: now(), nonce })))
        .status,
    ).toBe(200);
    expectFieldError(
      await pay(encryptCard(pem, { number: '4000000000002701' }, { timestamp: now(), nonce })),
      400,
      'cardInfo.encryptedCard',
    );
  });

  it('refuses garbage, a ciphertext for another key, and bad card data inside', async () => {
    expectFieldError(await pay('!!!'), 400, 'cardInfo.encryptedCard');
    expectFieldError(
      await pay(Buffer.alloc(256, 1).toString('base64')),
      400,
      'cardInfo.encryptedCard',
    );
    const { generateKeyPairSync } = await import('node:crypto');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expectFieldError(
      await pay(encryptCard(other, { number: '4000000000002701' }, { timestamp: now() })),
      400,
      'cardInfo.encryptedCard',
    );
    expectFieldError(
      await pay(encryptCard(pem, { number: '4000000000002702' }, { timestamp: now() })),
      400,
      'cardInfo.number',
    );
    expectFieldError(
      await pay(
        encryptCard(
          pem,
          { number: '4000000000002701', expirationMonth: '01', expirationYear: '21' },
          { timestamp: now() },
        ),
      ),
      400,
      'cardInfo.expirationYear',
    );
  });

  it('refuses encryptedCard together with a plain number', async () => {
    const encryptedCard = encryptCard(pem, { number: '4000000000002701' }, { timestamp: now() });
    expectFieldError(
      await sb.call('POST', '/v1/payments', { body: creditBody({ ...card(), encryptedCard }) }),
      400,
      'cardInfo.number',
    );
  });
});

describe('validate field rules', () => {
  it.each([
    [{ authenticationTransactionId: '' }, 'authenticationTransactionId'],
    [{ authenticationTransactionId: 'a'.repeat(65) }, 'authenticationTransactionId'],
    [{ pares: 'p'.repeat(8193) }, 'pares'],
    [{ pares: 'forged.token' }, 'pares'],
  ])('%j → 400', async (patch, tag) => {
    const b = debitBody(card());
    const res = await sb.call('POST', '/v1/payments/3ds/validate', {
      body: {
        authenticationTransactionId: '6d1c6c36-5d68-4f8f-a0c5-4bb1c6b4e7a1',
        pares: 'x.y',
        cardInfo: b.cardInfo,
        payment: b.payment,
        sellerInfo: b.sellerInfo,
        ...patch,
      },
    });
    expectFieldError(res, 400, tag);
  });
});
