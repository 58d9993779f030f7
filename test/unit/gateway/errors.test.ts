import { describe, expect, it } from 'vitest';
import {
  errorItemsFrom,
  GatewayDeclinedError,
  GatewayError,
  GatewayInternalError,
  GatewayNetworkError,
  gatewayErrorFrom,
  GatewayProtocolError,
  GatewayThreeDsError,
  GatewayTimeoutError,
  GatewayUnauthorizedError,
  GatewayValidationError,
} from '../../../server/gateway/errors';

describe('gatewayErrorFrom', () => {
  const threeDs = [{ tag: '3DS Fail', description: 'eci: 07, threeDsVersion: 2.2.0' }];
  const internal = [
    { tag: '', description: 'The command could not be executed because of an unknown error' },
  ];
  it.each([
    [401, [{ tag: 'Authorization', description: 'expired' }], GatewayUnauthorizedError],
    [400, threeDs, GatewayThreeDsError],
    [400, [{ tag: 'payment.amount', description: 'too big' }], GatewayValidationError],
    [404, [{ tag: 'path', description: 'no route' }], GatewayValidationError],
    [409, 'conflict', GatewayValidationError],
    [422, { success: false, message: 'invalid id' }, GatewayValidationError],
    [500, internal, GatewayInternalError],
    [503, '<html>down</html>', GatewayInternalError],
    [302, '', GatewayProtocolError],
    [200, {}, GatewayProtocolError],
  ])('%s %j → %o', (status, body, cls) => {
    const e = gatewayErrorFrom(status, body, 'op');
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(GatewayError);
    expect(e.status).toBe(status);
    expect(e.operation).toBe('op');
    expect(e.name).toBe(cls.name);
  });

  it('a 3DS Fail on a status other than 4xx is not a 3DS error', () => {
    expect(gatewayErrorFrom(500, threeDs, 'op')).toBeInstanceOf(GatewayInternalError);
  });

  it('keeps the items and names them in the message', () => {
    const e = gatewayErrorFrom(400, threeDs, 'createDebit3dsPayment');
    expect(e.items).toEqual(threeDs);
    expect(e.message).toBe(
      'createDebit3dsPayment: HTTP 400 — 3DS Fail: eci: 07, threeDsVersion: 2.2.0',
    );
  });
});

describe('errorItemsFrom', () => {
  it.each([
    [[{ tag: 'a', description: 'b' }], [{ tag: 'a', description: 'b' }]],
    [{ tag: 'a', description: 'b' }, [{ tag: 'a', description: 'b' }]],
    [[{ description: 'only' }], [{ tag: '', description: 'only' }]],
    [{ success: false, message: 'bad id' }, [{ tag: '', description: 'bad id' }]],
    ['plain text', [{ tag: '', description: 'plain text' }]],
    ['', []],
    [null, []],
    [42, []],
    [[1, 2], []],
  ])('%j → %j', (body, items) => {
    expect(errorItemsFrom(body)).toEqual(items);
  });

  it('clips long texts', () => {
    const [item] = errorItemsFrom('x'.repeat(10_000));
    expect(item!.description.length).toBeLessThanOrEqual(501);
  });
});

describe('error classes', () => {
  it('GatewayDeclinedError carries the code, description and the answer', () => {
    const response = { paymentAuthorization: { returnCode: '51', description: 'insufficient' } };
    const e = new GatewayDeclinedError({
      operation: 'createCreditPayment',
      returnCode: '51',
      description: 'insufficient',
      response,
    });
    expect(e).toBeInstanceOf(GatewayError);
    expect(e.status).toBe(200);
    expect(e.returnCode).toBe('51');
    expect(e.response).toBe(response);
    expect(e.items).toEqual([{ tag: '51', description: 'insufficient' }]);
    expect(e.message).toBe('createCreditPayment: declined 51 insufficient');
  });

  it('GatewayTimeoutError says whether the request was sent', () => {
    const sent = new GatewayTimeoutError({ status: 0, operation: 'x', sent: true, timeoutMs: 5 });
    const notSent = new GatewayTimeoutError({
      status: 0,
      operation: 'x',
      sent: false,
      timeoutMs: 5,
    });
    expect(sent.sent).toBe(true);
    expect(sent.message).toContain('outcome unknown');
    expect(notSent.message).toContain('not sent');
  });

  it('GatewayNetworkError keeps its cause', () => {
    const cause = new Error('boom');
    const e = new GatewayNetworkError({ status: 0, operation: 'x', sent: false, cause });
    expect(e.cause).toBe(cause);
    expect(e.message).toBe('x: no answer');
  });
});
