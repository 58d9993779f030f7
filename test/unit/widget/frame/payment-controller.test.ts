import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PayResult, PublicSession } from '../../../../contract/checkout';
import type { ApiResult, CheckoutApi } from '../../../../widget/frame/api';
import { RESEND_WINDOW_MS } from '../../../../widget/frame/outcome';
import { PaymentController } from '../../../../widget/frame/payment-controller';
import type { PaymentHost } from '../../../../widget/frame/payment-host';
import { messagesFor } from '../../../../widget/i18n';

// The frame's payment flow against a scripted BFF: what the shopper and the page are told
// when answers are lost. (The same flow runs in a real Chromium in test/e2e/outcome.spec.ts.)

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** The card plaintext inside a pay body's ciphertext (what the gateway would read). */
function plaintextOf(body: unknown): { timestamp: number } {
  const cipher = Buffer.from((body as { encryptedCard: string }).encryptedCard, 'base64');
  const plain = privateDecrypt(
    { key: pair.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    cipher,
  );
  return JSON.parse(plain.toString('utf8')) as { timestamp: number };
}

const open: PublicSession = {
  id: 'cs_test',
  status: 'open',
  amount: 1000,
  currency: 'BRL',
  methods: ['credit'],
  maxInstallments: 1,
  attemptsLeft: 3,
  expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
} as PublicSession;

type Answer = ApiResult<PayResult>;
const lost: Answer = { ok: false, status: 0, body: null };
const limited: Answer = {
  ok: false,
  status: 429,
  body: [{ tag: 'rate', description: 'too many payment attempts' }],
};

/** `bffAheadMs`: how far the BFF's clock is ahead of the device's (negative: behind). */
function harness(
  payAnswers: Answer[],
  { session = open, bffAheadMs = 0, keyReadable = true, completeAnswers = [] as Answer[] } = {},
) {
  const sent: { type: string; code?: string }[] = [];
  const keys: string[] = [];
  const bodies: unknown[] = [];
  const completeKeys: string[] = [];
  let current = session;
  let ahead = bffAheadMs;
  let reads = 0;
  let keyReads = 0;
  const api = {
    session: () => {
      reads++;
      return Promise.resolve({ ok: true as const, data: current });
    },
    publicKey: () => {
      keyReads++;
      return Promise.resolve(
        keyReadable
          ? { ok: true as const, data: { key: PEM } }
          : { ok: false as const, status: 503, body: null },
      );
    },
    pay: (body: unknown, key: string) => {
      keys.push(key);
      bodies.push(body);
      return Promise.resolve(payAnswers.shift() ?? lost);
    },
    now: () => Date.now() + ahead,
    completeChallenge: (_body: unknown, key: string) => {
      completeKeys.push(key);
      return Promise.resolve(completeAnswers.shift() ?? lost);
    },
    cancelChallenge: () => Promise.resolve(lost),
  } as unknown as CheckoutApi;
  const host = {
    values: {
      cardNumber: '4000 0000 0000 2701',
      cardholderName: 'ANA SILVA',
      expiry: '12/39',
      securityCode: '123',
      document: '',
      method: 'credit',
      installments: 1,
    },
    m: messagesFor('en'),
    uiLocale: 'en',
    challengeWindowSize: '05',
    send: (m: { type: string; code?: string }) => void sent.push(m),
    adopt: () => undefined,
    clearCard: () => undefined,
    focusForm: () => undefined,
    addController: () => undefined,
    removeController: () => undefined,
    requestUpdate: () => undefined,
    updateComplete: Promise.resolve(true),
  } as unknown as PaymentHost;
  const flow = new PaymentController(host);
  flow.connect(api);
  return {
    flow,
    sent,
    keys,
    bodies,
    completeKeys,
    reads: () => reads,
    keyReads: () => keyReads,
    /** What the session reads from now on. */
    setSession: (s: PublicSession) => void (current = s),
    /** The BFF's clock ahead of the device's from now on (as the API learns it from answers). */
    setBffAhead: (ms: number) => void (ahead = ms),
  };
}

beforeEach(() => {
  vi.stubGlobal('navigator', { language: 'en', userAgent: 'test' });
  vi.stubGlobal('screen', { colorDepth: 24, height: 900, width: 1440 });
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('a pay whose answer was lost', () => {
  it('a resend refused by the rate limit is no answer: it waits and sends again, never "try again"', async () => {
    const succeeded: Answer = {
      ok: true,
      data: {
        status: 'succeeded',
        payment: { amount: 1000, installments: 1, method: 'credit' },
      } as PayResult,
    };
    const { flow, sent, keys } = harness([lost, limited, succeeded]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    // Lost; the session reads open; the same pay again is rate-limited.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(keys).toHaveLength(2);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    expect(flow.status).toBe('confirming');
    // Later, sent again under the same key: the BFF answers how the first pay ended.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    expect(sent.map((m) => m.type)).toContain('succeeded');
  });

  it('a resend the BFF refuses for what it is (a 400) is its word: try again', async () => {
    const refused: Answer = { ok: false, status: 400, body: [{ tag: 'x', description: 'x' }] };
    const { flow, sent, keys } = harness([lost, refused]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(keys).toHaveLength(2);
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([{ code: 'try_again_later' }]);
  });
});

describe('a failure this frame has no words for (a code a newer BFF names)', () => {
  it('is never shown blank: the page hears a code it knows, the shopper a sentence', async () => {
    const unnamed: Answer = {
      ok: true,
      data: {
        status: 'failed',
        error: { code: 'card_velocity', retryable: true },
        attemptsLeft: 2,
      } as unknown as PayResult,
    };
    const { flow, sent } = harness(Array.from({ length: 5 }, () => unnamed));
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(30_000);
    const failed = sent.filter((m) => m.type === 'failed');
    expect(failed).toMatchObject([{ code: 'try_again_later', retryable: true }]);
    expect(flow.notice).toBe(messagesFor('en').failures.try_again_later);
    expect(flow.status).toBe('form');
  });
});

describe('a subscription started on a trial', () => {
  it('is announced as started with its first charge date, not as a payment received', async () => {
    const trial = { days: 7, firstChargeOn: '2026-12-03' };
    const started: Answer = {
      ok: true,
      data: {
        status: 'succeeded',
        payment: {
          paymentId: '',
          authorizationCode: '',
          amount: 0,
          installments: 1,
          method: 'credit',
          subscriptionId: 'sub_1',
          trial,
        },
      },
    };
    const { flow, sent } = harness([started]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    expect(flow.status).toBe('succeeded');
    expect(flow.notice).toBe(
      'Subscription started. Nothing was charged now; the first charge will be on 12/03/2026.',
    );
    expect(sent.find((m) => m.type === 'succeeded')).toMatchObject({
      payment: { amount: 0, subscriptionId: 'sub_1', trial },
    });
  });
});

describe('a pay resent while the first one still runs', () => {
  // A plan pay reads the plan (up to 10 s) before it claims the session: meanwhile the session
  // reads open and the same pay under the same key is answered 409.
  const stillRunning: Answer = {
    ok: false,
    status: 409,
    body: [
      {
        tag: 'Idempotency-Key',
        description: 'Idempotency-Key: a request with this key is still being processed',
      },
    ],
  };
  const paid = {
    ...open,
    status: 'succeeded',
    outcome: {
      status: 'succeeded',
      payment: {
        paymentId: 'p1',
        authorizationCode: 'a1',
        amount: 1000,
        installments: 1,
        method: 'credit',
      },
    },
  } as PublicSession;

  it('never says "try again" while the BFF says so, and shows the charge it then makes', async () => {
    const { flow, sent, keys, setSession } = harness([
      lost,
      stillRunning,
      stillRunning,
      stillRunning,
    ]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(12_000);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    expect(keys.length).toBeGreaterThan(4);
    expect(new Set(keys).size).toBe(1);
    expect(flow.notice).not.toBe(messagesFor('en').failures.try_again_later);
    // The first pay claims the session and charges.
    setSession(paid);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    expect(sent.map((m) => m.type)).toContain('succeeded');
    expect(flow.status).toBe('succeeded');
  });

  it('a pay that ran past any window and was declined is shown declined, not left confirming', async () => {
    // The first pay claims the session, runs long (a slow gateway), and is declined: the
    // session is open again, one attempt used. The resend then gets the kept decline.
    const declined: Answer = {
      ok: true,
      data: {
        status: 'failed',
        error: { code: 'declined', retryable: true },
        attemptsLeft: 2,
      },
    };
    const { flow, sent, keys, setSession } = harness([lost, stillRunning, stillRunning, declined]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(700);
    setSession({ ...open, status: 'processing' } as PublicSession);
    // Longer than the BFF's plan read and gateway call together: still only "confirming".
    await vi.advanceTimersByTimeAsync(120_000);
    expect(flow.status).toBe('confirming');
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    setSession({ ...open, attemptsLeft: 2 });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(new Set(keys).size).toBe(1);
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([
      { type: 'failed', code: 'declined', retryable: true },
    ]);
    expect(flow.status).toBe('form');
  });
  it('a key left by a stopped BFF: resent at most every 15 s, then "try again" before its takeover', async () => {
    const { flow, sent, keys } = harness(Array.from({ length: 200 }, () => stillRunning));
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    const atFive = keys.length;
    await vi.advanceTimersByTimeAsync(60_000);
    // Under the BFF's pay limit (10 a minute), which other shoppers behind the address share.
    expect(keys.length - atFive).toBeLessThanOrEqual(5);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    await vi.advanceTimersByTimeAsync(RESEND_WINDOW_MS - 6 * 60_000 + 30_000);
    // No handler runs that long and the session is open: it certainly did not charge.
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([
      { code: 'try_again_later', retryable: true },
    ]);
    expect(flow.status).toBe('form');
    expect(new Set(keys).size).toBe(1);
  });
  it('any answer after "still running" keeps the backoff from the first send: no resend storm', async () => {
    const bad: Answer = { ok: false, status: 502, body: null };
    const { flow, sent, keys } = harness([
      lost,
      stillRunning,
      ...Array.from({ length: 400 }, () => bad),
    ]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(60_000);
    const atOne = keys.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(keys.length - atOne).toBeLessThanOrEqual(5);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
  });

  it("the window runs on the BFF's clock: a device clock stepped 15 minutes on says nothing", async () => {
    const { flow, sent, setBffAhead } = harness(Array.from({ length: 40 }, () => stillRunning));
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    await vi.advanceTimersByTimeAsync(5_000);
    // The device's clock jumps; the BFF's does not (the API reads it from every answer's Date).
    vi.setSystemTime(Date.now() + 15 * 60_000);
    setBffAhead(-15 * 60_000);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sent.filter((m) => m.type === 'failed')).toEqual([]);
    expect(flow.status).toBe('confirming');
  });
});

describe('a lost pay found waiting on the bank, then a lost bank step', () => {
  it('shows what the BFF settled, not the bank dialog again', async () => {
    const challenge = {
      challengeId: 'ch_1',
      challengeUrl: 'https://bff.test/checkout/challenge/ch_1#s',
      windowSize: '05' as const,
    };
    const threeDsFailed: Answer = {
      ok: true,
      data: {
        status: 'failed',
        error: { code: 'three_ds_failed', retryable: true },
        attemptsLeft: 2,
      },
    };
    // Sent again, the lost pay would be replayed as the challenge it opened.
    const replayed: Answer = { ok: true, data: { status: 'challenge', ...challenge } };
    const { flow, sent, keys, completeKeys, setSession } = harness([lost, replayed], {
      completeAnswers: [lost, threeDsFailed],
    });
    vi.stubGlobal('location', { href: 'https://bff.test/checkout/frame' });
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    // The pay opened a challenge; its answer was lost: the session shows it.
    setSession({
      ...open,
      status: 'challenge',
      challenge: { ...challenge, answered: false },
    } as PublicSession);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sent.filter((m) => m.type === 'challenge')).toHaveLength(1);
    // The bank failed the shopper; the validate call's answer is lost; the session is open.
    setSession({ ...open, attemptsLeft: 2 });
    flow.onChallengeAnswered('ch_1');
    // The validate call waits for the card's encryption (real work, not a timer).
    await vi.waitFor(() => expect(completeKeys).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent.filter((m) => m.type === 'challenge')).toHaveLength(1);
    expect(keys).toHaveLength(1);
    // The validate call again under its key: the BFF answers how it ended.
    expect(completeKeys).toHaveLength(2);
    expect(new Set(completeKeys).size).toBe(1);
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([
      { code: 'three_ds_failed', retryable: true },
    ]);
    expect(flow.status).toBe('form');
  });
});

describe("a device clock that is not the BFF's", () => {
  it('the card is timestamped by the BFF clock: a device 10 minutes fast can still pay', async () => {
    // The gateway refuses a ciphertext dated 5 minutes ahead of it, or 15 behind.
    for (const bffAheadMs of [-10 * 60_000, 20 * 60_000]) {
      const { flow, bodies } = harness([lost], { bffAheadMs });
      await vi.advanceTimersByTimeAsync(100);
      await flow.submit();
      const { timestamp } = plaintextOf(bodies[0]);
      expect(Math.abs(timestamp - (Date.now() + bffAheadMs))).toBeLessThan(5_000);
    }
  });

  it('a device an hour fast neither shows the expiry notice at once nor reads every second', async () => {
    // 30 minutes left by the BFF's clock; by the device's, half an hour past.
    const session = { ...open, expiresAt: new Date(Date.now() - 30 * 60_000).toISOString() };
    const { flow, reads } = harness([], { session, bffAheadMs: -60 * 60_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(flow.expiring).toBe('');
    expect(reads()).toBe(1);
  });
});

describe('the card key', () => {
  it('is read once, and again after a card refused as unreadable (a rotated key)', async () => {
    const failed = (code: string): Answer => ({
      ok: true,
      data: { status: 'failed', error: { code, retryable: true }, attemptsLeft: 2 } as PayResult,
    });
    const { flow, keyReads } = harness([failed('declined'), failed('invalid_card'), lost]);
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    expect(keyReads()).toBe(1);
    // Back on the form after invalid_card, the key is read afresh for the next try.
    await flow.submit();
    await vi.advanceTimersByTimeAsync(10);
    expect(keyReads()).toBe(2);
    await flow.submit();
    expect(keyReads()).toBe(2);
  });
});

describe('a session that cannot be read at load', () => {
  const m = messagesFor('en');
  it.each([
    [401, m.failures.session_expired],
    [404, m.failures.session_expired],
    [410, m.failures.session_expired],
    [500, m.sessionUnavailable],
    [0, m.sessionUnavailable],
  ])('answered %i: the form says why, and is not drawn', async (status, text) => {
    const { flow } = harness([]);
    await vi.advanceTimersByTimeAsync(100);
    const api = {
      session: () => Promise.resolve({ ok: false, status, body: null }),
      publicKey: () => Promise.resolve({ ok: false, status, body: null }),
    } as unknown as CheckoutApi;
    flow.connect(api);
    // Past the reads asked again after a passing failure (1 + 2 + 4 s).
    await vi.advanceTimersByTimeAsync(8_000);
    expect(flow.status).toBe('unavailable');
    expect(flow.notice).toBe(text);
  });

  it.each([0, 503, 429])(
    'answered %i for a moment: read again, the form is drawn and ready',
    async (status) => {
      let failures = 2;
      const { flow, sent } = harness([]);
      await vi.advanceTimersByTimeAsync(100);
      const api = {
        session: () =>
          Promise.resolve(
            failures-- > 0 ? { ok: false, status, body: null } : { ok: true, data: open },
          ),
        publicKey: () => Promise.resolve({ ok: true, data: { key: PEM } }),
        now: () => Date.now(),
      } as unknown as CheckoutApi;
      flow.connect(api);
      await vi.advanceTimersByTimeAsync(100);
      expect(flow.status).toBe('loading');
      await vi.advanceTimersByTimeAsync(4_000);
      expect(flow.status).toBe('form');
      expect(flow.notice).toBe('');
      expect(sent.filter((m) => m.type === 'ready')).toHaveLength(2);
    },
  );
});

describe('a bank step left waiting, with the card key unreadable', () => {
  it('reads the session again, backing off, not every half second', async () => {
    const session = {
      ...open,
      status: 'challenge',
      challenge: {
        challengeId: 'ch_1',
        challengeUrl: 'https://bff.test/checkout/challenge/ch_1#s',
        windowSize: '05',
        answered: true,
      },
    } as PublicSession;
    const { flow, reads, keyReads } = harness([], { session, keyReadable: false });
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit(); // continues the bank step: only the validate call is left
    await vi.advanceTimersByTimeAsync(30_000);
    // 1 s, 2 s, 4 s, 8 s, 15 s between tries: a handful in 30 s (every 0.5 s was ~60).
    expect(reads()).toBeLessThanOrEqual(8);
    expect(keyReads()).toBeLessThanOrEqual(8);
    expect(flow.status).not.toBe('ended');
  });
});

describe('the expiry notice', () => {
  const soon = () => ({ ...open, expiresAt: new Date(Date.now() + 5 * 60_000).toISOString() });

  it('is not shown once the form has ended: "too many attempts" is not followed by "expires in 2 minutes"', async () => {
    const exhausted: Answer = {
      ok: true,
      data: {
        status: 'failed',
        error: { code: 'attempts_exhausted', retryable: false },
        attemptsLeft: 0,
      } as PayResult,
    };
    const { flow, sent } = harness([exhausted], { session: soon() });
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([{ retryable: false }]);
    expect(flow.status).toBe('ended');
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(flow.expiring).toBe('');
  });

  it('is not shown while the payment is being confirmed (the session cannot expire then)', async () => {
    const { flow, setSession } = harness([lost], { session: soon() });
    await vi.advanceTimersByTimeAsync(100);
    await flow.submit();
    setSession({ ...soon(), status: 'pending' } as PublicSession);
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(flow.status).toBe('confirming');
    expect(flow.expiring).toBe('');
  });

  it('is shown on the open form', async () => {
    const { flow } = harness([], { session: soon() });
    await vi.advanceTimersByTimeAsync(3.5 * 60_000);
    expect(flow.status).toBe('form');
    expect(flow.expiring).toBe('This payment session expires in 2 minutes.');
  });

  it('a decline answered after the end passed: the form looks again and tells the session ended', async () => {
    // Paid 10 s before the end; the bank's refusal comes 20 s after the pay was sent (its
    // timer starts when the BFF is asked: the card's encryption takes real time first).
    let asked!: () => void;
    const payAsked = new Promise<void>((r) => (asked = r));
    const declined = {
      then(answer: (a: Answer) => void) {
        asked();
        setTimeout(
          () =>
            answer({
              ok: true,
              data: {
                status: 'failed',
                error: { code: 'declined', retryable: true },
                attemptsLeft: 2,
              } as PayResult,
            }),
          20_000,
        );
      },
    } as unknown as Answer;
    const session = { ...open, expiresAt: new Date(Date.now() + 10_000).toISOString() };
    const { flow, sent, setSession } = harness([declined], { session });
    await vi.advanceTimersByTimeAsync(100);
    void flow.submit();
    await payAsked;
    await vi.advanceTimersByTimeAsync(21_000);
    expect(flow.status).toBe('form');
    setSession({ ...session, status: 'expired' } as PublicSession);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent.filter((m) => m.type === 'failed')).toMatchObject([
      { code: 'declined', retryable: true },
      { code: 'session_expired', retryable: false },
    ]);
    expect(flow.status).toBe('ended');
  });

  it('is not shown beside a bank step left waiting, which holds the session past its end', async () => {
    const challenge = {
      challengeId: 'ch_1',
      challengeUrl: 'https://bff.example/checkout/challenge/ch_1',
      windowSize: '05' as const,
      answered: false,
    };
    const { flow } = harness([], { session: { ...soon(), status: 'challenge', challenge } });
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(flow.resume).toEqual(challenge);
    expect(flow.expiring).toBe('');
  });

  it('counts the minutes down: "1 minute" in the last one, not "2 minutes" still', async () => {
    const { flow } = harness([], { session: soon() });
    await vi.advanceTimersByTimeAsync(4.5 * 60_000);
    expect(flow.expiring).toBe('This payment session expires in 1 minute.');
  });
});
