import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitOtp } from '../../../server/sandbox/three-ds/service';
import { startSandbox, type TestSandbox } from '../../support/sandbox';
import {
  debitBody,
  encryptCard,
  expectFieldError,
  plainCardInfo,
  publicKey,
} from './payment-helpers';

let sb: TestSandbox;
let pem: string;
const TERM_URL = 'http://127.0.0.1:9/checkout/challenge/ch_1/return';

beforeAll(async () => {
  sb = await startSandbox();
  pem = await publicKey(sb);
});
afterAll(() => sb.close());

interface Challenge {
  acsUrl: string;
  pareq: string;
  authenticationTransactionId: string;
}

async function startChallenge(number = '4000000000002503', amount = 2500): Promise<Challenge> {
  const res = await sb.call('POST', '/v1/payments/3ds', {
    body: debitBody(plainCardInfo(sb, number), { amount }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const threeDs = (res.body as { threeDs: Challenge & { status: string } }).threeDs;
  expect(threeDs.status).toBe('PENDING_AUTHENTICATION');
  return threeDs;
}

async function postForm(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

function hidden(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/** Opens the ACS page, then submits `steps` (OTPs or 'cancel'); returns the last page. */
async function runAcs(ch: Challenge, steps: string[], md = 'md-123') {
  const opened = await postForm(ch.acsUrl, { PaReq: ch.pareq, MD: md, TermUrl: TERM_URL });
  expect(opened.status).toBe(200);
  let page = opened;
  for (const step of steps) {
    page = await postForm(`${sb.url}/acs/challenge/submit`, {
      PaReq: ch.pareq,
      otp: step === 'cancel' ? '' : step,
      action: step === 'cancel' ? 'cancel' : 'submit',
    });
    expect(page.status).toBe(200);
  }
  return { opened, last: page };
}

async function validate(
  ch: Challenge,
  pares: string,
  opts: { number?: string; amount?: number; productType?: string } = {},
) {
  const encryptedCard = encryptCard(
    pem,
    { number: opts.number ?? '4000000000002503' },
    { timestamp: sb.realClock.now().getTime() },
  );
  const body = debitBody(
    { cardholderName: 'MARIA SILVA', encryptedCard },
    { amount: opts.amount ?? 2500, ...(opts.productType ? { productType: opts.productType } : {}) },
  );
  return sb.call('POST', '/v1/payments/3ds/validate', {
    body: {
      authenticationTransactionId: ch.authenticationTransactionId,
      pares,
      cardInfo: body.cardInfo,
      payment: body.payment,
      sellerInfo: body.sellerInfo,
    },
  });
}

describe('ACS challenge over HTTP form posts', () => {
  it('OTP 1234 authenticates; validate authorizes once; the PaRes cannot be reused', async () => {
    const ch = await startChallenge();
    const { opened, last } = await runAcs(ch, ['1234']);
    // An accessible page: labelled OTP input, hint, both buttons, amount and masked card only.
    expect(opened.html).toContain('<label for="otp">');
    expect(opened.html).toContain('id="otp"');
    expect(opened.html).toContain('sandbox OTP: 1234');
    expect(opened.html).toContain('value="submit"');
    expect(opened.html).toContain('value="cancel"');
    expect(opened.html).toContain('R$ 25,00');
    expect(opened.html).toContain('•••• 2503');
    expect(opened.html).not.toContain('400000');
    expect(opened.html).not.toContain('4000000000002503');
    // The answer page auto-posts PaRes and MD to the TermUrl, with a CSP nonce on its script.
    expect(last.html).toContain(`action="${TERM_URL}"`);
    expect(hidden(last.html, 'MD')).toBe('md-123');
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      last.headers.get('content-security-policy') ?? '',
    )?.[1];
    expect(nonce).toBeTruthy();
    expect(last.html).toContain(`<script nonce="${nonce}">`);
    expect(last.html).toContain('<button type="submit">');
    const pares = hidden(last.html, 'PaRes')!;

    const ok = await validate(ch, pares);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      paymentAuthorization: { returnCode: '00', amount: 2500 },
      threeDs: { status: 'AUTHENTICATION_SUCCESSFUL' },
    });
    expectFieldError(await validate(ch, pares), 400, 'pares');
  });

  it('two wrong OTPs show an error and allow a retry; a third fails the authentication', async () => {
    const ch = await startChallenge();
    const first = await runAcs(ch, ['0000']);
    expect(first.last.html).toContain('role="alert"');
    expect(first.last.html).toContain('aria-invalid="true"');
    expect(first.last.html).toMatch(/2 attempt/);
    const { last } = await runAcs(ch, ['1111', '2222']);
    const pares = hidden(last.html, 'PaRes')!;
    expect(pares).toBeTruthy();
    const res = await validate(ch, pares);
    expectFieldError(res, 400, '3DS Fail');
  });

  it('wrong OTPs sent at once each count: three fail the authentication', async () => {
    const ch = await startChallenge();
    await runAcs(ch, []);
    // Three submissions that all read the challenge before any of them wrote its count.
    const stale = await sb.sandbox.ctx.db
      .selectFrom('three_ds_auths')
      .selectAll()
      .where('id', '=', ch.authenticationTransactionId)
      .executeTakeFirstOrThrow();
    const outcomes = [];
    for (const otp of ['0000', '1111', '2222']) {
      outcomes.push(await submitOtp(sb.sandbox.ctx, stale, 'submit', otp));
    }
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'done']);
    // The right code now only re-posts the failed decision.
    const { last } = await runAcs(ch, ['1234']);
    expectFieldError(await validate(ch, hidden(last.html, 'PaRes')!), 400, '3DS Fail');
  });

  it('a wrong OTP then the right one still authenticates', async () => {
    const ch = await startChallenge();
    const { last } = await runAcs(ch, ['9999', '1234']);
    expect((await validate(ch, hidden(last.html, 'PaRes')!)).status).toBe(200);
  });

  it('Cancel answers a canceled PaRes, which validate refuses with 3DS Fail', async () => {
    const ch = await startChallenge();
    const { last } = await runAcs(ch, ['cancel']);
    expectFieldError(await validate(ch, hidden(last.html, 'PaRes')!), 400, '3DS Fail');
  });

  it('4000000000002370 fails even with the right OTP', async () => {
    const ch = await startChallenge('4000000000002370');
    const { last } = await runAcs(ch, ['1234']);
    const res = await validate(ch, hidden(last.html, 'PaRes')!, { number: '4000000000002370' });
    expectFieldError(res, 400, '3DS Fail');
  });

  it('refuses the PaRes of another authentication, another card, another amount', async () => {
    const a = await startChallenge();
    const b = await startChallenge();
    const paresA = hidden((await runAcs(a, ['1234'])).last.html, 'PaRes')!;
    const paresB = hidden((await runAcs(b, ['1234'])).last.html, 'PaRes')!;
    expect((await validate(a, paresB)).body).toEqual([
      { tag: 'pares', description: 'pares: belongs to another authentication' },
    ]);
    expectFieldError(await validate(a, paresA, { number: '4000000000002701' }), 400, 'cardInfo');
    expectFieldError(await validate(a, paresA, { amount: 2501 }), 400, 'payment.amount');
    // The payment's rules hold as for the 3DS payment: lojista needs 2 installments or more.
    expectFieldError(
      await validate(a, paresA, { productType: 'lojista' }),
      400,
      'payment.installments',
    );
    expectFieldError(await validate(a, `${paresA}x`), 400, 'pares');
    // Refusals did not burn it.
    expect((await validate(a, paresA)).status).toBe(200);
  });

  it("a bank's decision made before a restart is validated after it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-3ds-'));
    const shared = { sb, pem };
    try {
      sb = await startSandbox({ dbUrl: join(dir, 'sandbox.sqlite') });
      pem = await publicKey(sb);
      const ch = await startChallenge();
      const pares = hidden((await runAcs(ch, ['1234'])).last.html, 'PaRes')!;
      await sb.close();
      // The same store (and its key file) in a new process: the PaRes is still the bank's word.
      sb = await startSandbox({ dbUrl: join(dir, 'sandbox.sqlite') });
      const res = await validate(ch, pares);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ paymentAuthorization: { returnCode: '00' } });
      await sb.close();
    } finally {
      ({ sb, pem } = shared);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an expired challenge is refused by the ACS and by validate', async () => {
    const ch = await startChallenge();
    const { last } = await runAcs(ch, ['1234']);
    const pares = hidden(last.html, 'PaRes')!;
    await sb.call('POST', '/__sandbox/clock/advance', { token: null, body: { minutes: 11 } });
    const page = await postForm(ch.acsUrl, { PaReq: ch.pareq, MD: 'x', TermUrl: TERM_URL });
    expect(page.status).toBe(410);
    // The encrypted card is fresh on the moved clock; the authentication is not.
    expectFieldError(await validate(ch, pares), 400, 'authenticationTransactionId');
  });

  it('the ACS refuses a bad PaReq, a bad TermUrl and a non-form body, escaping what it echoes', async () => {
    const ch = await startChallenge();
    expect(
      (await postForm(ch.acsUrl, { PaReq: 'bm9wZQ==', MD: '', TermUrl: TERM_URL })).status,
    ).toBe(400);
    expect(
      (await postForm(ch.acsUrl, { PaReq: ch.pareq, MD: '', TermUrl: 'javascript:alert(1)' }))
        .status,
    ).toBe(400);
    const json = await fetch(ch.acsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    const { last } = await runAcs(ch, ['cancel'], '"><script>alert(1)</script>');
    expect(last.html).not.toContain('<script>alert(1)</script>');
    expect(hidden(last.html, 'MD')).toBe('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('card data at rest in three_ds_auths', () => {
  it('keeps only the last four and a keyed fingerprint that a copy of the row cannot reverse', async () => {
    const number = '4000000000002503';
    const ch = await startChallenge(number);
    const row = (await sb.sandbox.ctx.db
      .selectFrom('three_ds_auths')
      .selectAll()
      .where('id', '=', ch.authenticationTransactionId)
      .executeTakeFirstOrThrow()) as Record<string, unknown>;
    expect(row.last_four).toBe('2503');
    for (const gone of ['masked_number', 'pan_salt', 'pan_hash'])
      expect(row).not.toHaveProperty(gone);
    const values = Object.values(row).map(String).join('\n');
    expect(values).not.toContain('400000');
    // The fingerprint is not a plain or salted hash that could be brute-forced from the row:
    // no key in the database reproduces it.
    const { createHash } = await import('node:crypto');
    expect(row.pan_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row.pan_fingerprint).not.toBe(createHash('sha256').update(number).digest('hex'));
    const state = await sb.sandbox.ctx.db.selectFrom('sandbox_state').selectAll().execute();
    const { createHmac } = await import('node:crypto');
    for (const s of state) {
      expect(createHmac('sha256', s.value).update(number).digest('hex')).not.toBe(
        row.pan_fingerprint,
      );
    }
    // Still the same-card check validate needs.
    const { last } = await runAcs(ch, ['1234']);
    const pares = hidden(last.html, 'PaRes')!;
    expectFieldError(await validate(ch, pares, { number: '4000000000002701' }), 400, 'cardInfo');
    expect((await validate(ch, pares)).status).toBe(200);
  });
});
