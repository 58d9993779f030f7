import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_OPERATIONS } from '../../../server/gateway/operations';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import { creditBody, debitBody, plainCardInfo } from './payment-helpers';
import { createPlan, subscribe, vault } from './recurrence/helpers';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
  components: { schemas: Record<string, unknown> };
};

async function docs(): Promise<{ gateway: Doc; integration: Doc }> {
  const gateway = await fetch(`${sb.url}/openapi.json`);
  const integration = await fetch(`${sb.url}/openapi/integration.json`);
  expect(gateway.status).toBe(200);
  expect(integration.status).toBe(200);
  return { gateway: (await gateway.json()) as Doc, integration: (await integration.json()) as Doc };
}

describe('the sandbox describes both gateway APIs in OpenAPI 3.1', () => {
  it('each document is valid OpenAPI 3.1', async () => {
    for (const doc of Object.values(await docs())) {
      const validator = new Validator();
      const result = await validator.validate(doc as never);
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    }
  });

  it('every route the sandbox serves under /v1 and /api is documented, and nothing else', async () => {
    const served = new Set(
      sb.sandbox.app.routes
        .filter((r) => r.method !== 'ALL' && /^\/(v1|api)\//.test(r.path))
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const { gateway, integration } = await docs();
    const documented = new Set(
      [gateway, integration].flatMap((d) =>
        Object.entries(d.paths).flatMap(([path, ops]) =>
          Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
        ),
      ),
    );
    expect([...documented].sort()).toEqual([...served].sort());
    // The table the documents come from names each of the spec's operations once.
    expect(new Set(GATEWAY_OPERATIONS.map((o) => o.operationId)).size).toBe(
      GATEWAY_OPERATIONS.length,
    );
  });

  it('real answers match the documented schemas (200s and errors)', async () => {
    const { gateway, integration } = await docs();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemaOf = (doc: Doc, method: string, path: string, status: string) => {
      const content = doc.paths[path]?.[method]?.responses[status]?.content as
        { 'application/json': { schema: Record<string, unknown> } } | undefined;
      expect(content, `${method} ${path} ${status} documented`).toBeDefined();
      return { ...content!['application/json'].schema, components: doc.components };
    };
    const check = (
      doc: Doc,
      method: string,
      path: string,
      res: { status: number; body: unknown },
    ) => {
      const schema = schemaOf(doc, method, path, String(res.status));
      // `#/components/...` references resolve against the document's components.
      const validate = ajv.compile(schema);
      const ok = validate(res.body);
      expect(ok, `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };

    // The check can fail: an empty body is not a payment answer, nor an error list.
    expect(ajv.compile(schemaOf(gateway, 'post', '/v1/payments', '200'))({})).toBe(false);
    expect(ajv.compile(schemaOf(gateway, 'post', '/v1/payments', '400'))({})).toBe(false);

    const integrationToken = await sb.token('integration');
    const card = plainCardInfo(sb, '4000000000002701');

    check(gateway, 'get', '/v1/cards/public-key', await sb.call('GET', '/v1/cards/public-key'));
    const credit = await sb.call('POST', '/v1/payments', { body: creditBody(card) });
    expect(credit.status).toBe(200);
    check(gateway, 'post', '/v1/payments', credit);
    const debit = await sb.call('POST', '/v1/payments/3ds', {
      body: debitBody(plainCardInfo(sb, '4000000000002701')),
    });
    check(gateway, 'post', '/v1/payments/3ds', debit);
    check(gateway, 'get', '/v1/refund/list', await sb.call('GET', '/v1/refund/list'));
    // A field that breaks a rule: the documented error body.
    const refused = await sb.call('POST', '/v1/payments', { body: { payment: {} } });
    expect(refused.status).toBe(400);
    check(gateway, 'post', '/v1/payments', refused);
    const anonymous = await sb.call('GET', '/v1/refund/list', { token: null });
    expect(anonymous.status).toBe(401);
    check(gateway, 'get', '/v1/refund/list', anonymous);

    const planId = await createPlan(sb);
    const subscriptionId = await subscribe(sb, planId, await vault(sb));
    check(gateway, 'get', '/v1/recurrences/plans', await sb.call('GET', '/v1/recurrences/plans'));
    check(
      gateway,
      'get',
      '/v1/recurrences/plans/{planId}',
      await sb.call('GET', `/v1/recurrences/plans/${planId}`),
    );
    check(
      gateway,
      'get',
      '/v1/recurrences/subscriptions/{subscriptionId}',
      await sb.call('GET', `/v1/recurrences/subscriptions/${subscriptionId}`),
    );
    check(
      gateway,
      'get',
      '/v1/recurrences/billing',
      await sb.call('GET', '/v1/recurrences/billing'),
    );

    const nsu = (credit.body as { paymentAuthorization: { nsu: string } }).paymentAuthorization.nsu;
    const byCode = await sb.call(
      'POST',
      `/api/transaction/concil/search-by-code?accountNumber=1001&nsu=${nsu}`,
      { token: integrationToken },
    );
    expect(byCode.status, JSON.stringify(byCode.body)).toBe(200);
    expect((byCode.body as unknown[]).length).toBeGreaterThan(0);
    check(integration, 'post', '/api/transaction/concil/search-by-code', byCode);
    check(
      integration,
      'get',
      '/api/webhooks/subscriptions',
      await sb.call('GET', '/api/webhooks/subscriptions?accountNumber=1001', {
        token: integrationToken,
      }),
    );
  });

  it('a reference page lists every operation', async () => {
    const page = await fetch(`${sb.url}/docs`);
    expect(page.status).toBe(200);
    const text = await page.text();
    for (const o of GATEWAY_OPERATIONS) expect(text).toContain(o.operationId);
  });
});
