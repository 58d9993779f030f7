import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_ERROR_TYPES } from '../../../contract/events';
import { API_ERROR_CODES, apiErrorOf } from '../../../server/bff/http/api-errors';

describe('the error object of the merchant API', () => {
  it('docs/bff-api.md lists exactly the types and codes the code answers', () => {
    const doc = readFileSync('docs/bff-api.md', 'utf8');
    const documented: Record<string, string> = {};
    for (const line of doc.split('\n')) {
      const m = /^\| `(\w+_error)` \| [^|]+ \| (.+) \|$/.exec(line);
      if (!m) continue;
      for (const [, code] of m[2]!.matchAll(/`(\w+)`/g)) documented[code!] = m[1]!;
    }
    expect(documented).toEqual(API_ERROR_CODES);
    expect(new Set(Object.values(API_ERROR_CODES))).toEqual(new Set(API_ERROR_TYPES));
  });

  it('names the first field at fault and joins every message', () => {
    const e = apiErrorOf(
      400,
      [
        { tag: 'customer.email', description: 'customer.email: Invalid email address' },
        { tag: 'amount', description: 'amount: is required (cents), or a planId' },
      ],
      'req_1',
    );
    expect(e.error).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'customer.email',
      message: 'customer.email: Invalid email address; amount: is required (cents), or a planId',
      requestId: 'req_1',
    });
    expect(apiErrorOf(409, [{ tag: 'Idempotency-Key', description: 'x' }], 'r').error.code).toBe(
      'idempotency_key_in_use',
    );
    expect(apiErrorOf(503, [{ tag: 'gateway', description: 'x' }], 'r').error.type).toBe(
      'gateway_error',
    );
    expect(apiErrorOf(500, [], 'r').error).toMatchObject({
      type: 'api_error',
      code: 'internal_error',
    });
  });
});
