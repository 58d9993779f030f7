import { describe, expect, it } from 'vitest';
import { asPayResult, createCheckoutApi } from '../../../../widget/frame/api';
import type { FormValues } from '../../../../widget/frame/form-model';
import {
  cardSecrets,
  errorText,
  fieldStates,
  validateForm,
} from '../../../../widget/frame/form-model';
import { fieldErrorTexts } from '../../../../widget/frame/field-errors';
import { fmt, messagesFor } from '../../../../widget/i18n';

const now = new Date(2026, 10, 23);
const good: FormValues = {
  cardNumber: '4000 0000 0000 2701',
  cardholderName: 'JOANA SOUZA',
  expiry: '12/28',
  securityCode: '123',
  document: '',
  method: 'credit',
  installments: 1,
};

describe('validateForm', () => {
  it('a complete form has no errors', () => {
    expect(validateForm(good, now)).toEqual({});
  });

  it.each([
    [{ cardNumber: '' }, { cardNumber: 'required' }],
    [{ cardNumber: '4000 0000 0000 2702' }, { cardNumber: 'invalid' }],
    [{ cardholderName: '   ' }, { cardholderName: 'required' }],
    [{ cardholderName: 'x'.repeat(31) }, { cardholderName: 'too_long' }],
    [{ expiry: '10/26' }, { expiry: 'past' }],
    [{ expiry: '13/26' }, { expiry: 'invalid' }],
    [{ securityCode: '12' }, { securityCode: 'invalid' }],
    [{ cardNumber: '3400 000000 02708', securityCode: '123' }, { securityCode: 'invalid' }],
    [{ cardNumber: '3400 000000 02708', securityCode: '1234' }, {}],
    [{ document: '529.982.247-24' }, { document: 'invalid' }],
    [{ document: '529.982.247-25' }, {}],
  ] as const)('%j → %j', (change, errors) => {
    expect(validateForm({ ...good, ...change }, now)).toEqual(errors);
  });
});

describe('fieldStates', () => {
  it('reports valid and empty per field, without values', () => {
    const values = { ...good, securityCode: '', document: '' };
    const states = fieldStates(values, validateForm(values, now));
    expect(states).toEqual({
      cardNumber: { valid: true, empty: false },
      cardholderName: { valid: true, empty: false },
      expiry: { valid: true, empty: false },
      securityCode: { valid: false, empty: true },
      document: { valid: true, empty: true },
    });
    expect(JSON.stringify(states)).not.toContain('4000');
  });
});

describe('errorText', () => {
  it.each([
    ['pt-BR', 'cardNumber', 'invalid', null, 'O número do cartão é inválido.'],
    ['pt-BR', 'expiry', 'past', null, 'O cartão está vencido.'],
    ['pt-BR', 'securityCode', 'invalid', 'amex', 'O código de segurança tem 4 dígitos.'],
    ['en', 'securityCode', 'invalid', 'visa', 'The security code has 3 digits.'],
    ['en', 'cardholderName', 'required', null, 'Fill in this field.'],
    ['en', 'document', 'invalid', null, 'Invalid CPF or CNPJ.'],
  ] as const)('%s %s %s', (locale, field, error, brand, text) => {
    expect(errorText(fieldErrorTexts(messagesFor(locale)), field, error, brand)).toBe(text);
  });

  it.each(['pt-BR', 'en'] as const)(
    '%s: every error a field can give has its text (the page carries the table)',
    (locale) => {
      const m = messagesFor(locale);
      const texts = JSON.parse(JSON.stringify(fieldErrorTexts(m))) as ReturnType<
        typeof fieldErrorTexts
      >;
      const e = m.errors;
      const cases = [
        ['cardNumber', 'required', e.required],
        ['cardNumber', 'incomplete', e.cardIncomplete],
        ['cardNumber', 'unknown_brand', e.cardUnknownBrand],
        ['cardNumber', 'invalid', e.cardInvalid],
        ['cardholderName', 'required', e.required],
        ['cardholderName', 'too_long', e.nameInvalid],
        ['expiry', 'required', e.required],
        ['expiry', 'invalid', e.expiryInvalid],
        ['expiry', 'past', e.expiryPast],
        ['expiry', 'too_far', e.expiryInvalid],
        ['securityCode', 'required', e.required],
        ['securityCode', 'invalid', fmt(e.securityCodeInvalid, 3)],
        ['document', 'invalid', e.documentInvalid],
      ] as const;
      for (const [field, error, text] of cases) {
        expect(errorText(texts, field, error, 'visa'), `${field} ${error}`).toBe(text);
      }
      expect(errorText(texts, 'securityCode', 'invalid', 'amex')).toBe(
        fmt(e.securityCodeInvalid, 4),
      );
    },
  );
});

describe('cardSecrets', () => {
  it('digits only and two-digit month and year', () => {
    expect(cardSecrets({ ...good, expiry: '3/2030' })).toEqual({
      number: '4000000000002701',
      securityCode: '123',
      expirationMonth: '03',
      expirationYear: '30',
    });
  });
});

describe('asPayResult', () => {
  it.each([
    [{ status: 'succeeded', payment: { paymentId: 'p' } }, true],
    [{ status: 'challenge', challengeId: 'c', challengeUrl: '/u', windowSize: '03' }, true],
    [{ status: 'challenge', challengeId: 'c' }, false],
    [{ status: 'failed', error: { code: 'declined', retryable: true }, attemptsLeft: 2 }, true],
    [[{ tag: 'x', description: 'y' }], false],
    [null, false],
  ])('%j → %s', (body, ok) => expect(asPayResult(body) !== null).toBe(ok));
});

describe('createCheckoutApi', () => {
  it("tells the BFF's time from the Date of its answers, when the device's is off", async () => {
    let bffAheadMs = 10 * 60_000;
    const api = createCheckoutApi('cs_1_secret_abc', '/checkout/api', () =>
      Promise.resolve(
        new Response('{}', { headers: { date: new Date(Date.now() + bffAheadMs).toUTCString() } }),
      ),
    );
    expect(Math.abs(api.now() - Date.now())).toBeLessThan(50);
    await api.session();
    expect(Math.abs(api.now() - (Date.now() + bffAheadMs))).toBeLessThan(1_500);
    // Within two seconds (a Date has whole seconds), the device's own clock is kept.
    bffAheadMs = 900;
    await api.session();
    expect(Math.abs(api.now() - Date.now())).toBeLessThan(50);
  });

  it('sends the secret as a Bearer header, the idempotency key, never in the URL', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const api = createCheckoutApi('cs_1_secret_abc', '/checkout/api', async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} });
      return new Response(JSON.stringify({ status: 'failed' }), { status: 402 });
    });
    const res = await api.pay(
      {
        method: 'debit',
        installments: 1,
        encryptedCard: 'x',
        cardholderName: 'A',
        deviceInfo: {
          language: 'pt-BR',
          javaEnabled: false,
          colorDepth: 24,
          screenHeight: 1,
          screenWidth: 1,
          timezoneOffset: 180,
          userAgent: 'u',
        },
        fingerprint: '00000000-0000-4000-8000-000000000000',
      },
      'key-123456',
    );
    expect(res).toEqual({ ok: false, status: 402, body: { status: 'failed' } });
    const call = calls[0]!;
    expect(call.url).toBe('/checkout/api/pay');
    expect(call.url).not.toContain('secret');
    const headers = call.init.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer cs_1_secret_abc');
    expect(headers['idempotency-key']).toBe('key-123456');
    expect(call.init.credentials).toBe('omit');
  });

  it('a 2xx whose body is cut off or not JSON is no answer (status 0), never data', async () => {
    for (const body of ['<html>portal</html>', '', 'null', '"ok"']) {
      const api = createCheckoutApi('cs_1_secret_abc', '/checkout/api', () =>
        Promise.resolve(new Response(body, { status: 200 })),
      );
      await expect(api.session(), body).resolves.toEqual({ ok: false, status: 0, body: null });
    }
  });

  it('a network failure is a value, not a throw', async () => {
    const api = createCheckoutApi('cs_1_secret_abc', '/checkout/api', () =>
      Promise.reject(new TypeError('offline')),
    );
    await expect(api.session()).resolves.toEqual({ ok: false, status: 0, body: null });
  });
});
