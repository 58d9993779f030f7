import { describe, expect, it } from 'vitest';
import {
  chooseChallengeWindowSize,
  resolveLocale,
  sessionIdFromSecret,
} from '../../../../widget/protocol/constants';
import {
  isChallengeAnswered,
  isFrameHello,
  isFrameToHostMessage,
  isHostToFrameMessage,
  isInitMessage,
  PROTOCOL,
  sanitizeTheme,
} from '../../../../widget/protocol/messages';
import { expectedParentOrigin } from '../../../../widget/protocol/origin';

const init = {
  protocol: PROTOCOL,
  type: 'init',
  clientSecret: 'cs_abc_secret_xyz',
  locale: 'pt-BR',
  theme: {},
  hideButton: false,
  challengeWindowSize: '03',
};

describe('window message guards', () => {
  it('accepts a well-formed hello and init', () => {
    expect(isFrameHello({ protocol: PROTOCOL, type: 'frame-hello' })).toBe(true);
    expect(isInitMessage(init)).toBe(true);
    expect(isInitMessage({ ...init, submitLabel: 'Comprar' })).toBe(true);
  });

  it.each([
    ['no protocol', { ...init, protocol: undefined }],
    ['other protocol', { ...init, protocol: 'card-checkout/2' }],
    ['bad locale', { ...init, locale: 'fr' }],
    ['secret not a string', { ...init, clientSecret: 1 }],
    ['huge secret', { ...init, clientSecret: 'x'.repeat(201) }],
    ['theme not an object', { ...init, theme: 'red' }],
    ['hideButton not boolean', { ...init, hideButton: 'true' }],
    ['bad window size', { ...init, challengeWindowSize: '06' }],
    ['long label', { ...init, submitLabel: 'x'.repeat(61) }],
    ['null', null],
    ['array', [init]],
    ['string', JSON.stringify(init)],
  ])('rejects an init with %s', (_, msg) => expect(isInitMessage(msg)).toBe(false));

  it('challenge-answered needs a challenge id', () => {
    expect(isChallengeAnswered({ type: 'challenge-answered', challengeId: 'ch_1' })).toBe(true);
    expect(isChallengeAnswered({ type: 'challenge-answered' })).toBe(false);
    expect(isChallengeAnswered({ type: 'challenge-answered', challengeId: '' })).toBe(false);
    expect(isChallengeAnswered({ type: 'succeeded', challengeId: 'ch_1' })).toBe(false);
  });
});

describe('isHostToFrameMessage', () => {
  it.each([
    [{ type: 'submit' }, true],
    [{ type: 'theme', theme: {} }, true],
    [{ type: 'theme' }, false],
    [{ type: 'viewport', challengeWindowSize: '05' }, true],
    [{ type: 'viewport', challengeWindowSize: 5 }, false],
    [{ type: 'challenge-answered', challengeId: 'ch_1' }, true],
    [{ type: 'challenge-answered', challengeId: 7 }, false],
    [{ type: 'challenge-closed', challengeId: 'ch_1', reason: 'closed' }, true],
    [{ type: 'challenge-closed', challengeId: 'ch_1', reason: 'timeout' }, true],
    [{ type: 'challenge-closed', challengeId: 'ch_1', reason: 'bored' }, false],
    [{ type: 'pay-now' }, false],
    [undefined, false],
    [{ type: 'renew', clientSecret: 'cs_a_secret_b' }, true],
    [{ type: 'renew', clientSecret: '' }, false],
    [{ type: 'renew', clientSecret: 'x'.repeat(201) }, false],
    [{ type: 'renew' }, false],
  ])('%j → %s', (msg, ok) => expect(isHostToFrameMessage(msg)).toBe(ok));
});

const fields = {
  cardNumber: { valid: true, empty: false },
  cardholderName: { valid: true, empty: false },
  expiry: { valid: true, empty: false },
  securityCode: { valid: true, empty: false },
  document: { valid: true, empty: true },
};

describe('isFrameToHostMessage', () => {
  it.each([
    [{ type: 'ready' }, true],
    [{ type: 'submit' }, true],
    [{ type: 'resize', height: 420 }, true],
    [{ type: 'resize', height: -1 }, false],
    [{ type: 'resize', height: Number.NaN }, false],
    [{ type: 'change', brand: 'visa', complete: true, fields }, true],
    [{ type: 'change', brand: null, complete: false, fields }, true],
    [{ type: 'change', brand: 'diners', complete: false, fields }, false],
    [{ type: 'change', brand: null, complete: false, fields: { ...fields, expiry: {} } }, false],
    [
      {
        type: 'challenge',
        challengeId: 'c',
        challengeUrl: '/checkout/challenge/c',
        windowSize: '02',
      },
      true,
    ],
    [{ type: 'challenge', challengeId: 'c', challengeUrl: '/x', windowSize: '00' }, false],
    [
      {
        type: 'succeeded',
        method: 'credit',
        payment: { paymentId: 'p', authorizationCode: 'a', amount: 100 },
      },
      true,
    ],
    [
      {
        type: 'succeeded',
        method: 'credit',
        payment: { paymentId: 'p', authorizationCode: 'a', amount: '100' },
      },
      false,
    ],
    [
      {
        type: 'succeeded',
        method: 'credit',
        payment: {
          paymentId: '',
          authorizationCode: '',
          amount: 0,
          subscriptionId: 's',
          trial: { days: 7, firstChargeOn: '2026-12-03' },
        },
      },
      true,
    ],
    [
      {
        type: 'succeeded',
        method: 'credit',
        payment: { paymentId: '', authorizationCode: '', amount: 0, trial: { days: 7 } },
      },
      false,
    ],
    [{ type: 'failed', code: 'declined', message: 'Não autorizado', retryable: true }, true],
    [{ type: 'failed', code: '05', message: 'x', retryable: true }, false],
    [{ type: 'failed', code: 'declined', message: 'x' }, false],
    [{ type: 'unknown' }, false],
  ])('%j → %s', (msg, ok) => expect(isFrameToHostMessage(msg)).toBe(ok));
});

describe('sanitizeTheme', () => {
  it('keeps known properties with harmless values and drops the rest', () => {
    expect(
      sanitizeTheme({
        '--checkout-accent-color': ' #0b57d0 ',
        '--checkout-font-family': 'Inter, system-ui, sans-serif',
        '--checkout-radius': '8px',
        '--checkout-text-color': 'red; background: url(https://evil.example/x)',
        '--checkout-border-color': 'url(https://evil.example/x)',
        '--checkout-error-color': '}body{display:none',
        '--checkout-spacing': '',
        '--other': 'blue',
      }),
    ).toEqual({
      '--checkout-accent-color': '#0b57d0',
      '--checkout-font-family': 'Inter, system-ui, sans-serif',
      '--checkout-radius': '8px',
    });
    expect(sanitizeTheme(null)).toEqual({});
  });
});

describe('chooseChallengeWindowSize', () => {
  it.each([
    [1280, 800, '03'],
    [532, 680, '03'],
    [700, 500, '04'],
    [450, 500, '02'],
    [375, 667, '05'],
    [320, 480, '05'],
    [1280, 300, '05'],
  ])('%i×%i → %s', (w, h, size) => expect(chooseChallengeWindowSize(w, h)).toBe(size));
});

describe('sessionIdFromSecret', () => {
  it.each([
    ['cs_abc123_secret_zzz', 'cs_abc123'],
    ['cs_0b7c-11_secret_a_b-c', 'cs_0b7c-11'],
    ['cs_abc123', null],
    ['sk_abc_secret_x', null],
    ['cs_abc_secret_', null],
    ['', null],
  ])('%s → %s', (secret, id) => expect(sessionIdFromSecret(secret)).toBe(id));
});

describe('resolveLocale', () => {
  it.each([
    ['en', 'en'],
    ['en-US', 'en'],
    ['EN', 'en'],
    ['pt-BR', 'pt-BR'],
    ['es', 'pt-BR'],
    ['english', 'pt-BR'],
    [null, 'pt-BR'],
  ])('%s → %s', (input, out) => expect(resolveLocale(input)).toBe(out));
});

describe('expectedParentOrigin', () => {
  it('prefers ancestorOrigins, then the referrer, then the query parameter', () => {
    expect(
      expectedParentOrigin({
        ancestorOrigins: ['http://localhost:3000'],
        referrer: 'http://evil.example/',
        param: 'http://other.example',
      }),
    ).toBe('http://localhost:3000');
    expect(
      expectedParentOrigin({ ancestorOrigins: [], referrer: 'http://localhost:3000/cart?x=1' }),
    ).toBe('http://localhost:3000');
    expect(expectedParentOrigin({ referrer: '', param: 'http://localhost:3000' })).toBe(
      'http://localhost:3000',
    );
    expect(expectedParentOrigin({ referrer: '', param: 'not a url' })).toBeNull();
    expect(expectedParentOrigin({})).toBeNull();
  });

  it('the session origin from the BFF wins, unless the browser contradicts it', () => {
    const sessionOrigin = 'http://localhost:3000';
    expect(expectedParentOrigin({ sessionOrigin, referrer: '' })).toBe(sessionOrigin);
    expect(
      expectedParentOrigin({ sessionOrigin, ancestorOrigins: ['http://localhost:3000'] }),
    ).toBe(sessionOrigin);
    expect(
      expectedParentOrigin({ sessionOrigin, ancestorOrigins: ['http://evil.example'] }),
    ).toBeNull();
    expect(expectedParentOrigin({ sessionOrigin, referrer: 'http://evil.example/' })).toBeNull();
    expect(
      expectedParentOrigin({ sessionOrigin, referrer: '', param: 'http://evil.example' }),
    ).toBe(sessionOrigin);
  });
});
