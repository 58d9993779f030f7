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
