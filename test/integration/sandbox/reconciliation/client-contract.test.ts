import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGatewayClient } from '../../../../server/gateway/client';
import { GatewayError } from '../../../../server/gateway/errors';
import { WebhookNotificationSchema } from '../../../../server/gateway/schemas/webhooks';
import { OffsetClock } from '../../../../server/lib/clock';
import { startSandbox, type TestSandbox } from '../../../support/sandbox';
import { creditBody, plainCardInfo } from '../payment-helpers';
import { basic, startReceiver, waitFor } from '../webhooks/receiver';

// The typed gateway client parses every answer with the contract schemas
// (server/gateway/schemas): calling each Integration operation against the sandbox proves
// the sandbox's rows are what the client expects.
const clock = new OffsetClock(0, { now: () => new Date('2026-08-03T14:00:00Z') });
let sb: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  sb = await startSandbox({ deps: { clock } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sb.close();
  await receiver.close();
});

it('every reconciliation, bank slip and webhook operation parses through the client', async () => {
  const client = createGatewayClient({
    gatewayBaseUrl: sb.url,
    integrationBaseUrl: sb.url,
    credentials: { gateway: { userName: 'sandbox', password: 'sandbox' } },
  });
  const account = { accountNumber: '1001' };
  expect(
    await client.setWebhook({
      ...account,
      url: `${receiver.url}/hook`,
      basicAuth: basic('a', 'b'),
    }),
  ).toEqual({ url: `${receiver.url}/hook` });
  expect(await client.getWebhook(account)).toEqual({ url: `${receiver.url}/hook` });

  const paid = await sb.call('POST', '/v1/payments', {
    body: {
      ...creditBody(plainCardInfo(sb, '5200000000002235'), {
        amount: 9_999,
        installments: 2,
        productType: 'lojista',
      }),
      configSplit: [{ documentNumberBeneficiary: '12345678909', percent: 5, type: 'liquido' }],
    },
  });
  expect(paid.status).toBe(200);
  const auth = (paid.body as { paymentAuthorization: { nsu: string; authorizationCode: string } })
    .paymentAuthorization;
  const range = { ...account, startDate: '2026-08-03', endDate: '2026-08-03' };
  expect(await client.searchConcilByCode({ ...account, nsu: auth.nsu })).toHaveLength(2);
  expect(
    await client.searchConcilByAuthCode({ ...account, codAuth: auth.authorizationCode }),
  ).toHaveLength(2);
  const summary = await client.searchConcilByOperationDate(range);
  expect(summary[0]).toMatchObject({ installments: 2, amount: 99.99, transactionStatus: 'A' });
  expect(await client.searchConcilByOperationDateInstallments(range)).toHaveLength(2);
  expect(
    await client.searchConcilByPaymentDate({
      ...account,
      startDate: '2026-09-02',
      endDate: '2026-10-02',
    }),
  ).toHaveLength(2);

  const slip = await sb.call('POST', '/__sandbox/bank-slips', {
    token: null,
    body: { accountNumber: '1001', value: 80, dueDate: '2026-08-10' },
  });
  const id = (slip.body as { id: string }).id;
  await sb.call('POST', `/__sandbox/bank-slips/${id}/pay`, { token: null, body: {} });
  const slipRange = { ...account, startDate: '2026-08-01', endDate: '2026-08-31' };
  expect(await client.listBankSlipsByDueDate(slipRange)).toHaveLength(1);
  expect(await client.listBankSlipsByPaymentDate(slipRange)).toHaveLength(1);
  expect(
    await client.listBankSlipsByCreditDate({ ...slipRange, statusIntegration: 2 }),
  ).toHaveLength(1);
  expect(await client.getBankSlip({ ...account, id })).toMatchObject({
    id,
    success: true,
    status: 3,
  });
  await expect(client.getBankSlip({ ...account, id: 'missing' })).rejects.toBeInstanceOf(
    GatewayError,
  );
  await expect(
    client.searchConcilByCode({ accountNumber: '2002', nsu: '1' }),
  ).rejects.toMatchObject({
    status: 403,
  });

  await waitFor(() => receiver.received.length >= 2);
  for (const r of receiver.received) WebhookNotificationSchema.parse(r.body);
  expect(await client.deleteWebhook(account)).toEqual({ url: `${receiver.url}/hook` });
});
