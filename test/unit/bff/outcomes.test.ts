import { describe, expect, it } from 'vitest';
import {
  GatewayDeclinedError,
  GatewayInternalError,
  GatewayNetworkError,
  GatewayProtocolError,
  GatewayThreeDsError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
  GatewayValidationError,
} from '../../../server/gateway/errors';
import {
  classifyGatewayError,
  classifyMoneyCallError,
  countsAsAttempt,
  declineFailureCode,
  failureCodeOf,
  refusesCiphertext,
} from '../../../server/bff/payments/outcomes';

describe('declineFailureCode', () => {
  it.each([
    ['51', 'insufficient_funds'],
    ['54', 'expired_card'],
    ['N7', 'invalid_card'],
    ['14', 'invalid_card'],
    ['05', 'declined'],
    ['46', 'declined'],
    ['99', 'declined'],
  ])('%s → %s', (code, expected) => {
    expect(declineFailureCode(code)).toBe(expected);
  });
});

describe('classifyGatewayError', () => {
  const op = { operation: 'createCreditPayment' };
  it.each([
    [
      new GatewayDeclinedError({ ...op, returnCode: '51', description: 'x', response: {} }),
      { kind: 'declined', returnCode: '51' },
      'insufficient_funds',
      true,
    ],
    [
      new GatewayThreeDsError({
        ...op,
        status: 400,
        items: [{ tag: '3DS Fail', description: '' }],
      }),
      { kind: 'three_ds_failed' },
      'three_ds_failed',
      true,
    ],
    [
      new GatewayValidationError({ ...op, status: 400 }),
      { kind: 'rejected' },
      'invalid_card',
      true,
    ],
    [
      new GatewayInternalError({ ...op, status: 500 }),
      { kind: 'unavailable' },
      'try_again_later',
      false,
    ],
    [
      new GatewayUnauthorizedError({ ...op, status: 401 }),
      { kind: 'unavailable' },
      'try_again_later',
      false,
    ],
    [
      new GatewayNetworkError({ ...op, status: 0, sent: false }),
      { kind: 'unavailable' },
      'try_again_later',
      false,
    ],
    [
      new GatewayNetworkError({ ...op, status: 0, sent: true }),
      { kind: 'unknown' },
      'try_again_later',
      false,
    ],
    [
      new GatewayTimeoutError({ ...op, status: 0, sent: true, timeoutMs: 1 }),
      { kind: 'unknown' },
      'try_again_later',
      false,
    ],
    [
      new GatewayTimeoutError({ ...op, status: 0, sent: false, timeoutMs: 1 }),
      { kind: 'unavailable' },
      'try_again_later',
      false,
    ],
    [
      new GatewayProtocolError({ ...op, status: 200 }),
      { kind: 'unknown' },
      'try_again_later',
      false,
    ],
  ])('%s', (err, kind, code, counts) => {
    const f = classifyGatewayError(err);
    expect(f).toEqual(kind);
    expect(failureCodeOf(f!)).toBe(code);
    expect(countsAsAttempt(f!)).toBe(counts);
  });

  it('is null for errors that are not the gateway’s (bugs rethrow)', () => {
    expect(classifyGatewayError(new TypeError('x'))).toBeNull();
    expect(classifyGatewayError('boom')).toBeNull();
  });
});

describe('classifyMoneyCallError (pay, validate, subscribe)', () => {
  const op = { operation: 'createCreditPayment' };
  it('a 5xx after the request reached the gateway is unknown: it may have charged', () => {
    expect(classifyMoneyCallError(new GatewayInternalError({ ...op, status: 500 }))).toEqual({
      kind: 'unknown',
    });
    expect(classifyMoneyCallError(new GatewayInternalError({ ...op, status: 503 }))).toEqual({
      kind: 'unknown',
    });
  });

  it('nothing sent (refused connection, token failure) certainly did not happen', () => {
    expect(
      classifyMoneyCallError(new GatewayNetworkError({ ...op, status: 0, sent: false })),
    ).toEqual({ kind: 'unavailable' });
    expect(
      classifyMoneyCallError(new GatewayUnauthorizedError({ operation: 'token', status: 401 })),
    ).toEqual({ kind: 'unavailable' });
  });

  it('answers the gateway gave keep their meaning', () => {
    expect(classifyMoneyCallError(new GatewayValidationError({ ...op, status: 400 }))).toEqual({
      kind: 'rejected',
    });
    expect(classifyMoneyCallError(new Error('bug'))).toBeNull();
  });
});

describe('4xx answers: only a refusal of the request itself judges the card', () => {
  const op = { operation: 'createCreditPayment' };
  const refusal = (status: number) =>
    new GatewayValidationError({ ...op, status, items: [{ tag: '', description: 'no' }] });
  const rejected = { kind: 'rejected' };
  const unavailable = { kind: 'unavailable' };
  const unknown = { kind: 'unknown' };

  // [status, any call, a call that moves money]
  it.each([
    [400, rejected, rejected],
    [422, rejected, rejected],
    // Refused before processing (access, route, method, format, size, rate): nothing charged.
    [403, unavailable, unavailable],
    [404, unavailable, unavailable],
    [405, unavailable, unavailable],
    [413, unavailable, unavailable],
    [415, unavailable, unavailable],
    [429, unavailable, unavailable],
    // The gateway (or a proxy before it) may have processed the payment.
    [408, unavailable, unknown],
    [409, unavailable, unknown],
    [418, unavailable, unknown],
    [499, unavailable, unknown],
  ])('%s → %j, money call %j', (status, any, money) => {
    const err = refusal(status);
    expect(classifyGatewayError(err)).toEqual(any);
    expect(classifyMoneyCallError(err)).toEqual(money);
    const f = classifyMoneyCallError(err)!;
    expect(countsAsAttempt(f)).toBe(status === 400 || status === 422);
    expect(failureCodeOf(f)).toBe(f.kind === 'rejected' ? 'invalid_card' : 'try_again_later');
  });

  it('reads the status, not the class: a bare GatewayError 429 is no card judgment', async () => {
    const { GatewayError } = await import('../../../server/gateway/errors');
    const err = new GatewayError({ ...op, status: 429 });
    expect(classifyMoneyCallError(err)).toEqual(unavailable);
    expect(classifyMoneyCallError(new GatewayError({ ...op, status: 422 }))).toEqual(rejected);
  });

  it('a refusal made before sending (status 0) or inside a 2xx stays a refusal', () => {
    expect(classifyGatewayError(refusal(0))).toEqual(rejected);
    expect(classifyGatewayError(new GatewayValidationError({ ...op, status: 200 }))).toEqual(
      rejected,
    );
  });

  it('a 3DS Fail item is an authentication failure whatever the 4xx', () => {
    const err = new GatewayThreeDsError({
      ...op,
      status: 400,
      items: [{ tag: '3DS Fail', description: 'eci 07' }],
    });
    expect(classifyMoneyCallError(err)).toEqual({ kind: 'three_ds_failed' });
  });
});

describe('refusesCiphertext', () => {
  const op = { operation: 'createCreditPayment' };
  it('is true for a 4xx naming cardInfo.encryptedCard (e.g. made with a rotated key)', () => {
    const items = [{ tag: 'cardInfo.encryptedCard', description: 'does not decrypt' }];
    expect(refusesCiphertext(new GatewayValidationError({ ...op, status: 400, items }))).toBe(true);
  });

  it('is false for other refusals and other errors', () => {
    const items = [{ tag: 'cardInfo.cardholderName', description: 'too long' }];
    expect(refusesCiphertext(new GatewayValidationError({ ...op, status: 400, items }))).toBe(
      false,
    );
    const internal = [{ tag: 'cardInfo.encryptedCard', description: 'x' }];
    expect(
      refusesCiphertext(new GatewayInternalError({ ...op, status: 500, items: internal })),
    ).toBe(false);
    expect(refusesCiphertext(new Error('cardInfo.encryptedCard'))).toBe(false);
  });
});
