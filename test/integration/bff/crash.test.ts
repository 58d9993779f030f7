import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import {
  DEVICE_INFO,
  encryptWithKey,
  MERCHANT_ORIGIN,
  MERCHANT_SECRET,
  postForm,
  readForm,
} from '../../support/bff';
import { bffProcess, type BffProcess } from '../../support/bff-process';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

// A real `kill -9` of the BFF process while a gateway call that moves money is in flight
// (the sandbox holds it with a latency fault), then a restart over the same store: the
// charge the gateway made is found and the session settles (issue 9 §1).

let sb: TestSandbox;
let bff: BffProcess;
const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };

beforeAll(async () => {
  sb = await startSandbox();
  bff = await bffProcess({
    sandboxUrl: sb.url,
    env: {
      // The call is killed long before it could time out; a stranded attempt is looked up
      // 2 × 5 s + 1 s after it started, every half second.
      GATEWAY_TIMEOUT_MS: '5000',
      BFF_STRANDED_MARGIN_MS: '1000',
      BFF_RESOLVE_INTERVAL_MS: '500',
      BFF_WEBHOOK_REGISTER: 'true',
      BFF_WEBHOOK_USER: 'gateway',
      BFF_WEBHOOK_PASSWORD: 'gateway',
    },
  });
  await bff.start();
}, 90_000);
afterAll(async () => {
  await bff.close();
  await sb.close();
});
afterEach(async () => {
  await sb.call('DELETE', '/__sandbox/faults', { token: null });
});

async function call(method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(bff.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

async function createSession(body: Record<string, unknown>) {
  const res = await call(
    'POST',
    '/v1/checkout-sessions',
    { origin: MERCHANT_ORIGIN, ...body },
    merchant,
  );
  expect(res.status).toBe(201);
  return res.body as { id: string; clientSecret: string };
}

interface Detail {
  status: string;
  attempts: { id: string; status: string; subscriptionId: string | null }[];
  payment: { paymentId: string; nsu: string; subscriptionId: string | null } | null;
}
const detail = async (id: string) =>
  (await call('GET', `/v1/checkout-sessions/${id}`, undefined, merchant)).body as Detail;

async function payBody(secret: string, number: string, method: 'credit' | 'debit') {
  const key = await call('GET', '/checkout/api/public-key', undefined, {
    authorization: `Bearer ${secret}`,
  });
  return {
    method,
    installments: 1,
    encryptedCard: encryptWithKey((key.body as { key: string }).key, number),
    cardholderName: 'MARIA SILVA',
    deviceInfo: { ...DEVICE_INFO },
    fingerprint: randomUUID(),
  };
}

const frame = (secret: string, path: string, body: unknown) =>
  call('POST', `/checkout/api/${path}`, body, {
    authorization: `Bearer ${secret}`,
    'idempotency-key': `idem-${randomUUID()}`,
  });

async function until<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: timed out\n${bff.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Holds the next call to `path` for 8 s, starts `step`, kills the BFF while it waits. */
async function crashDuring(path: string, step: () => Promise<unknown>, sessionId: string) {
  const fault = await sb.call('POST', '/__sandbox/faults', {
    token: null,
    body: { method: 'POST', path, count: 1, latencyMs: 8_000 },
  });
  expect(fault.status).toBeLessThan(300);
  const inFlight = step().catch((err: unknown) => err);
  await until('the attempt in flight', async () => {
    const d = await detail(sessionId);
    return d.status === 'processing' && d.attempts.some((a) => a.status === 'unknown');
  });
  await new Promise((r) => setTimeout(r, 500));
  await bff.kill();
  expect(await inFlight).toBeInstanceOf(Error); // the connection died with the process
  await bff.start();
}

describe('a crash during a gateway call does not strand the charge', { timeout: 120_000 }, () => {
  it('credit (POST /v1/payments): the session succeeds; the Authorized notice is linked', async () => {
    const s = await createSession({ amount: 8_800, referenceTransaction: 'crash-credit' });
    const body = await payBody(s.clientSecret, '4000000000002701', 'credit');
    await crashDuring('/v1/payments', () => frame(s.clientSecret, 'pay', body), s.id);

    const settled = await until('succeeded', async () => {
      const d = await detail(s.id);
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(settled.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect(settled.payment?.paymentId).toMatch(/^\d+$/);
    const view = await call('GET', '/checkout/api/session', undefined, {
      authorization: `Bearer ${s.clientSecret}`,
    });
    expect(view.body).toMatchObject({ status: 'succeeded', outcome: { status: 'succeeded' } });
    // No second charge: the session is paid.
    const again = await frame(s.clientSecret, 'pay', body);
    expect((again.body as { error: { code: string } }).error.code).toBe('already_paid');
    // The gateway's Authorized notification is confirmed and linked to this session.
    const notice = await until('notice linked', async () => {
      const list = await call('GET', '/v1/webhook-notifications?limit=20', undefined, merchant);
      return (list.body as { data: { nsu: string; status: string; sessionId: string }[] }).data
        .filter((n) => n.nsu === settled.payment!.nsu)
        .find((n) => n.status === 'processed');
    });
    expect(notice.sessionId).toBe(s.id);
  });

  it('debit challenge complete (POST /v1/payments/3ds/validate): the session succeeds', async () => {
    const s = await createSession({ amount: 7_700 });
    const body = await payBody(s.clientSecret, '4000000000002503', 'debit');
    const challenge = (await frame(s.clientSecret, 'pay', body)).body as Extract<
      PayResult,
      { status: 'challenge' }
    >;
    expect(challenge.status).toBe('challenge');
    // The launcher opens with the per-challenge secret the URL's fragment carries.
    const url = new URL(challenge.challengeUrl);
    const launcher = await postForm(url.origin + url.pathname, { MD: url.hash.slice(1) });
    const launcherForm = readForm(launcher.text, challenge.challengeUrl);
    const otpPage = await postForm(launcherForm.action, launcherForm.fields);
    const otpForm = readForm(otpPage.text, launcherForm.action);
    const answer = await postForm(otpForm.action, {
      ...otpForm.fields,
      otp: '1234',
      action: 'submit',
    });
    const termForm = readForm(answer.text, otpForm.action);
    expect((await postForm(termForm.action, termForm.fields)).status).toBe(200);
    const fresh = await payBody(s.clientSecret, '4000000000002503', 'debit');
    await crashDuring(
      '/v1/payments/3ds/validate',
      () =>
        frame(s.clientSecret, 'challenge/complete', {
          challengeId: challenge.challengeId,
          encryptedCard: fresh.encryptedCard,
        }),
      s.id,
    );
    const settled = await until('succeeded', async () => {
      const d = await detail(s.id);
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(settled.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect(settled.payment?.paymentId).toMatch(/^\d+$/);
  });

  it('subscription creation: the subscription is found by its order number', async () => {
    const plan = await sb.call('POST', '/v1/recurrences/plans', {
      body: {
        name: 'Crash monthly',
        description: 'Crash monthly membership',
        paymentMethod: 'CreditCard',
        amount: 19.9,
        planType: 'Monthly',
      },
    });
    expect(plan.status).toBe(200);
    const s = await createSession({ planId: plan.body as string });
    const body = await payBody(s.clientSecret, '4000000000002701', 'credit');
    await crashDuring(
      '/v1/recurrences/subscriptions',
      () => frame(s.clientSecret, 'pay', body),
      s.id,
    );
    const settled = await until('succeeded', async () => {
      const d = await detail(s.id);
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(settled.attempts[0]?.subscriptionId).toEqual(expect.any(String));
    const sub = await sb.call(
      'GET',
      `/v1/recurrences/subscriptions/${settled.attempts[0]!.subscriptionId}`,
    );
    expect(sub.body).toMatchObject({ status: 'Active' });
  });
});
