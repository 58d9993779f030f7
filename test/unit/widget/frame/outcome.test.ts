import { describe, expect, it } from 'vitest';
import type { PayResult, PublicSession } from '../../../../server/bff/checkout-api';
import { IDEMPOTENCY_STALE_MS } from '../../../../server/bff/idempotency';
import { CIPHERTEXT_MAX_AGE_MS } from '../../../../server/sandbox/keys/card-crypto';
import type { ApiResult } from '../../../../widget/frame/api';
import {
  afterOpenRead,
  RESEND_WINDOW_MS,
  CONFIRM_WINDOW_MS,
  confirmDelay,
  firstStillRuns,
  sessionVerdict,
  stepVerdict,
} from '../../../../widget/frame/outcome';

const paid: PayResult = {
  status: 'succeeded',
  payment: {
    paymentId: 'p1',
    authorizationCode: 'a1',
    amount: 4990,
    installments: 1,
    method: 'debit',
  },
};
const declined: PayResult = {
  status: 'failed',
  error: { code: 'declined', retryable: true },
  attemptsLeft: 2,
};
const alreadyPaid: PayResult = {
  status: 'failed',
  error: { code: 'already_paid', retryable: false },
  attemptsLeft: 0,
};
const ok = (data: unknown): ApiResult<PayResult> => ({ ok: true, data: data as PayResult });
const no = (status: number, body: unknown = null): ApiResult<PayResult> => ({
  ok: false,
  status,
  body,
});

describe('stepVerdict: what a pay or complete answer lets the frame say', () => {
  it.each([
    ['a success', ok(paid), 'result'],
    ['a decline', ok(declined), 'result'],
    ['pending (outcome unknown)', ok({ status: 'pending' }), 'confirm'],
    ['"already paid" (another tab paid)', ok(alreadyPaid), 'confirm'],
    ['a 200 without a readable body', ok(null), 'confirm'],
    [
      'a failure this frame has no words for',
      ok({ status: 'failed', error: { code: 'card_velocity', retryable: true }, attemptsLeft: 2 }),
      'confirm',
    ],
    ['no answer (network error, timeout)', no(0), 'confirm'],
    ['a 500', no(500), 'confirm'],
    ['a 502 from a proxy', no(502, '<html>'), 'confirm'],
    ['a 504', no(504), 'confirm'],
    ['a 409 (in progress, pending, paid)', no(409, [{ tag: 'session' }]), 'confirm'],
    ['a 409 carrying already_paid', no(409, alreadyPaid), 'confirm'],
    ['a 401 (secret no longer valid)', no(401), 'expired'],
    ['a 410', no(410), 'expired'],
    ['a 400 (refused before charging)', no(400, [{ tag: 'method' }]), 'refused'],
    ['a 422 (idempotency key reused)', no(422), 'refused'],
    ['a 429 (rate limited)', no(429), 'refused'],
  ])('%s → %s', (_name, res, kind) => {
    expect(stepVerdict(res).kind).toBe(kind);
  });

  it('a failure is shown only with the BFF vouching for it', () => {
    expect(stepVerdict(ok(declined))).toEqual({ kind: 'result', result: declined });
  });
});

const session = (patch: Partial<PublicSession>): PublicSession => ({
  id: 'cs_1',
  status: 'open',
  amount: 4990,
  currency: 'BRL',
  methods: ['credit', 'debit'],
  maxInstallments: 6,
  attemptsLeft: 3,
  expiresAt: '2026-11-23T23:00:00Z',
  ...patch,
});

describe('sessionVerdict: what a session read says', () => {
  it('succeeded with its outcome ends in success', () => {
    expect(sessionVerdict(session({ status: 'succeeded', outcome: paid }))).toEqual({
      kind: 'succeeded',
      result: paid,
    });
  });

  it.each(['pending', 'processing'] as const)('%s is not known yet', (status) => {
    expect(sessionVerdict(session({ status })).kind).toBe('unknown');
  });

  it('succeeded without an outcome is read again, never called failed', () => {
    expect(sessionVerdict(session({ status: 'succeeded' })).kind).toBe('unknown');
  });

  it('open: nothing was charged', () => {
    expect(sessionVerdict(session({})).kind).toBe('open');
  });

  it('a challenge waiting is a bank step to continue', () => {
    const challenge = {
      challengeId: 'ch_1',
      challengeUrl: 'https://bff.example/checkout/challenge/ch_1',
      windowSize: '03' as const,
      answered: false,
    };
    expect(sessionVerdict(session({ status: 'challenge', challenge }))).toEqual({
      kind: 'challenge',
      challenge,
    });
  });

  it.each([
    [session({ status: 'expired' }), 'session_expired'],
    [session({ status: 'failed', outcome: declined }), 'declined'],
    [session({ status: 'failed', attemptsLeft: 0 }), 'attempts_exhausted'],
    // A code a newer BFF names and this frame has no words for: said as the frame can.
    [
      session({
        status: 'failed',
        attemptsLeft: 0,
        outcome: { ...declined, error: { code: 'card_velocity' as 'declined', retryable: false } },
      }),
      'attempts_exhausted',
    ],
  ])('ended: %j → %s', (s, code) => {
    expect(sessionVerdict(s)).toEqual({ kind: 'ended', code });
  });
});

describe('confirmDelay', () => {
  it('backs off from 0.5 s to 4 s within the gateway timeout, then reads every 15 s', () => {
    expect([0, 1, 2, 3, 4, 5].map((r) => confirmDelay(r, 0))).toEqual([
      500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect(confirmDelay(2, CONFIRM_WINDOW_MS)).toBe(15_000);
  });
});

describe('a resend of a lost pay', () => {
  const keyBusy = [{ tag: 'Idempotency-Key', description: 'still being processed' }];
  it.each([
    [{ ok: false as const, status: 409, body: keyBusy }, true],
    // A kept 409 of a pay that ended names the session: the first pay is not running.
    [{ ok: false as const, status: 409, body: [{ tag: 'session', description: 'busy' }] }, false],
    [{ ok: false as const, status: 422, body: keyBusy }, false],
    [{ ok: false as const, status: 0, body: null }, false],
  ])('%j: the first pay still runs → %s', (res, runs) => {
    expect(firstStillRuns(res)).toBe(runs);
  });

  it.each([
    [{ again: 0, running: 0, at: 0 }, 1_000, 'resend'],
    [{ again: 3, running: 0, at: 0 }, 1_000, 'fail'],
    // Said to be running: sent again however many resends there were, never "try again"...
    [{ again: 5, running: 7, at: 0 }, 1_000, 'resend'],
    [{ again: 3, running: 1, at: 0 }, RESEND_WINDOW_MS - 1, 'resend'],
    // ...until no handler can still be running it: the BFF that took the key stopped.
    [{ again: 0, running: 1, at: 0 }, RESEND_WINDOW_MS, 'fail'],
  ])('%j at %i ms, the session open → %s', (sent, now, next) => {
    expect(afterOpenRead(sent, now)).toBe(next);
  });

  it("stops before the BFF takes a stale key over and runs a ciphertext the gateway's window has closed on", () => {
    expect(RESEND_WINDOW_MS).toBeLessThan(IDEMPOTENCY_STALE_MS);
    expect(RESEND_WINDOW_MS).toBeLessThan(CIPHERTEXT_MAX_AGE_MS);
  });
});
