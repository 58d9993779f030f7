import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicSession } from '../../../server/bff/checkout-api';
import { createGatewayClient } from '../../../server/gateway/client';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import { firstStillRuns } from '../../../widget/frame/outcome';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, startBff, type TestBff } from '../../support/bff';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// A plan pay reads its plan from the gateway before it claims the session. The frame, its
// answer lost, reads the session (open) and sends the same pay again under the same key:
// what the BFF answers then is what the frame takes for "the first pay still runs"
// (widget/frame/outcome.ts `firstStillRuns`), never for "try again".

let sandbox: TestSandbox;
let t: TestBff;
/** While set, a plan read waits for it (and `planRead` says one started). */
let gate: { open: () => void; opened: Promise<void>; reading: () => void } | null = null;
let planRead: Promise<void> = Promise.resolve();

beforeAll(async () => {
  sandbox = await startSandbox();
  const real = createGatewayClient({
    gatewayBaseUrl: sandbox.url,
    integrationBaseUrl: sandbox.url,
    credentials: {
      gateway: { userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password },
    },
  });
  const gated = {
    ...real,
    getPlan: async (...args: Parameters<typeof real.getPlan>) => {
      if (gate) {
        gate.reading();
        await gate.opened;
      }
      return real.getPlan(...args);
    },
  };
  t = await startBff({ sandbox, deps: { gateway: gated } });
});
afterAll(async () => {
  await t.close();
  await sandbox.close();
});

function holdPlanReads(): () => void {
  let open!: () => void;
  let reading!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  planRead = new Promise<void>((r) => (reading = r));
  gate = { open, opened, reading };
  return () => {
    gate = null;
    open();
  };
}

describe('a plan pay sent again while the first one reads the plan', () => {
  it('is answered "still being processed" on its key while the session reads open', async () => {
    const plan = await sandbox.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Resend monthly',
        description: 'Resend monthly membership',
        amount: 19.9,
        planType: 'Monthly',
        paymentMethod: 'CreditCard',
      },
    });
    expect(plan.status).toBe(200);
    const created = await t.request('POST', '/v1/checkout-sessions', {
      headers: { authorization: `Bearer ${MERCHANT_SECRET}` },
      body: { planId: plan.body as string, origin: MERCHANT_ORIGIN },
    });
    expect(created.status).toBe(201);
    const secret = (created.body as { clientSecret: string }).clientSecret;
    const body = await t.payBody(secret, '4000000000002701', { method: 'credit' });
    const key = 'resend-running-0001';

    const release = holdPlanReads();
    const first = t.pay(secret, body, key); // its answer is lost: the frame never sees it
    await planRead;
    const view = await t.frame(secret, 'GET', '/checkout/api/session');
    expect((view.body as PublicSession).status).toBe('open');
    const again = await t.pay(secret, body, key);
    expect(again.status).toBe(409);
    expect(firstStillRuns({ ok: false, status: again.status, body: again.body })).toBe(true);

    // The plan read ends: the first pay claims the session and charges; the same pay again
    // is answered with that charge.
    release();
    const done = await first;
    expect(done.body).toMatchObject({ status: 'succeeded' });
    const replayed = await t.pay(secret, body, key);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(done.body);
  });
});
