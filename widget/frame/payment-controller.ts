/**
 * The payment flow of `<card-form>` as a Lit reactive controller: it reads the session, pays,
 * runs the 3DS challenge with the host's dialog, and reports outcomes. Outcomes are always the
 * BFF's answers; a window message only says "go and ask". When an answer is lost (a network
 * error, a timeout, a 5xx, a 409) the flow reads the session until the outcome is known
 * (issue 9 §4): a payment is called failed only when it certainly did not happen.
 */
import type { ReactiveController } from 'lit';
import type {
  FailureCode,
  PayResult,
  PendingChallenge,
  PublicSession,
} from '../../contract/checkout';
import { plural } from '../i18n/messages';
import type { FrameToHostMessage } from '../protocol/messages';
import type { ApiResult, CheckoutApi } from './api';
import type { FirstReads, PaymentHost, SentStep, Status } from './payment-host';
import { asPayResult } from './api';
import { CardKey } from './card-key';
import { ExpiryWatch } from './expiry-watch';
import { payBodyOf } from './pay-body';
import { successNotice } from './plan-terms';
import type { Settled } from './outcome';
import {
  afterOpenRead,
  confirmDelay,
  firstStillRuns,
  gone,
  sessionVerdict,
  stepVerdict,
} from './outcome';

export type { FirstReads, PaymentHost, Status } from './payment-host';

/** After a resend refused with 429: the pay limit counts per minute. */
const LIMITED_WAIT_MS = 10_000;
/** How long the form waits for the session before it draws the fields without it. */
const DRAW_FIELDS_AFTER_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Session reads at load asked again after a passing failure (1 s, 2 s, 4 s apart). */
const LOAD_RETRIES = 3;
/** No answer, or one that says "not now" rather than "never". */
const passing = (status: number) =>
  status === 0 || status === 408 || status === 429 || status >= 500;

/** A step's Idempotency-Key, sent now (`at`, the BFF's clock: the device's may step), no resend yet. */
const newResend = (at: number) => ({ key: crypto.randomUUID(), again: 0, running: 0, at });

export class PaymentController implements ReactiveController {
  status: Status = 'connecting';
  /** The text of the one live region (failures, "fix N fields", success). */
  notice = '';
  noticeKind: 'info' | 'failure' = 'info';
  session: PublicSession | null = null;
  /** A bank step left waiting (a reload during a challenge): the form continues it. */
  resume: PendingChallenge | null = null;

  #api: CheckoutApi | null = null;
  #card = new CardKey();
  /** Card key reads failed in a row while completing a challenge (backs the retries off). */
  #keyMisses = 0;
  /** Synchronous guard: a double click pays once. */
  #busy = false;
  #challengeId: string | null = null;
  /** Bumped to stop a confirm loop or a stale read (a renewal, a disconnect). */
  #run = 0;
  #expiry = new ExpiryWatch(
    this.host,
    () => this.#api?.now() ?? Date.now(),
    () => void this.#check(),
  );
  /**
   * A step took the shopper's focus (the pay button and fields disabled while paying, the
   * bank's dialog): the form, open again, gives it back.
   */
  #refocus = false;
  /**
   * The pay or bank step whose answer was lost, kept to send again under its Idempotency-Key
   * (`#resend`), and what its resends were answered.
   */
  #sent: SentStep | null = null;

  constructor(private readonly host: PaymentHost) {
    host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.#onVisible);
  }

  hostDisconnected(): void {
    document.removeEventListener('visibilitychange', this.#onVisible);
    this.#expiry.clear();
    this.#run++;
  }

  /**
   * "This session expires in N minutes" while the form is open, or empty: an ended form has
   * nothing left to expire, and a session paying or confirming does not expire meanwhile.
   */
  get expiring(): string {
    return this.status === 'form' ? this.#expiry.text : '';
  }

  get busy(): boolean {
    return ['paying', 'challenge', 'confirming'].includes(this.status);
  }

  /**
   * Starts (or, with a renewed session, restarts) on an API client of the session; typed values
   * stay. `first`: the session and key reads already under way (boot.ts).
   */
  connect(api: CheckoutApi, first?: FirstReads): void {
    this.#api = api;
    this.#run++;
    this.#expiry.clear();
    void this.#load(first);
  }

  /** After the element validated the form: pay, or continue the bank step left waiting. */
  async submit(): Promise<void> {
    if (this.#busy || this.status !== 'form' || !this.#api || !this.session) return;
    this.#send({ type: 'submit' });
    this.#refocus = true;
    if (this.resume) return this.#continueBankStep();
    this.#busy = true;
    this.#set('paying');
    const values = this.host.values;
    try {
      const encryptedCard = await this.#encrypt(values);
      const body = payBodyOf(values, encryptedCard, this.host.challengeWindowSize);
      const sent = (this.#sent = { kind: 'pay', body, ...newResend(this.#api.now()) });
      this.#step(await this.#api.pay(body, sent.key));
    } catch {
      // The key or the encryption failed: nothing reached the BFF.
      this.#fail('try_again_later', true, this.session.attemptsLeft);
    } finally {
      this.#busy = false;
    }
  }

  /**
   * The bank step left waiting (found at load), continued: the session is read again first, as
   * the bank may have answered since (then only the validate call is left) or the step ended.
   */
  async #continueBankStep(): Promise<void> {
    const api = this.#api;
    if (!api) return;
    this.#busy = true;
    this.#set('paying');
    // The API answers every failure as a result, never a throw.
    const res = await api.session();
    // Free before the step it leads to (the validate call guards on it too).
    this.#busy = false;
    if (res.ok) this.#apply(res.data, 'confirm');
    else void this.#confirm();
  }

  onChallengeAnswered(challengeId: string): void {
    if (challengeId !== this.#challengeId) return;
    this.#refocus = true;
    void this.#complete();
  }

  async onChallengeClosed(challengeId: string, reason: 'closed' | 'timeout'): Promise<void> {
    const api = this.#api;
    if (challengeId !== this.#challengeId || !api || this.#busy) return;
    this.#busy = true;
    this.#refocus = true;
    this.#set('paying');
    try {
      const res = await api.cancelChallenge({ challengeId, reason });
      const result = asPayResult(res.ok ? res.data : res.body);
      if (result && result.status !== 'pending') this.#result(result);
      else await this.#afterLostCancel();
    } finally {
      this.#busy = false;
    }
  }

  /**
   * A cancel not heard: the session says whether it happened. Open, it did (a canceled
   * challenge uses no attempt): the shopper and the page are told, as with an answer. A
   * challenge still waiting is one to continue; anything else as at load.
   */
  async #afterLostCancel(): Promise<void> {
    const api = this.#api;
    if (!api) return;
    const res = await api.session();
    if (!res.ok) return this.#load();
    if (sessionVerdict(res.data).kind !== 'open') return this.#apply(res.data, 'load');
    this.session = res.data;
    this.host.adopt(res.data);
    this.#fail('challenge_canceled', true, res.data.attemptsLeft);
    this.#expiry.schedule(res.data.expiresAt);
  }

  // ---------------------------------------------------------------- reading the session

  async #load(first?: FirstReads): Promise<void> {
    const api = this.#api;
    if (!api) return;
    const run = this.#run;
    this.resume = null;
    if (this.notice) this.#announce('', 'info');
    // The session and the card key in parallel: neither waits for the other. The session is
    // asked first: `checkout-ready` waits for it, the key only for a payment.
    const session = first?.session ?? api.session();
    void this.#key(first?.publicKey).catch(() => undefined);
    // The fields need no session: they are drawn while it is read, unless it is about to come
    // (the boot asks for it while the bundle loads): then the form is drawn once, whole — one
    // render and one layout before `checkout-ready` instead of two.
    const soon = await Promise.race([session, sleep(DRAW_FIELDS_AFTER_MS).then(() => null)]);
    if (run !== this.#run) return;
    if (!soon) this.#set('loading');
    let res = soon ?? (await session);
    if (run !== this.#run) return;
    // A read lost or refused for a moment (a network blip, a BFF restarting, the rate limit)
    // is asked again, backing off, before the shopper is told to reload.
    for (let i = 0; !res.ok && passing(res.status) && i < LOAD_RETRIES; i++) {
      this.#set('loading');
      await sleep(1_000 * 2 ** i);
      if (run !== this.#run) return;
      res = await api.session();
      if (run !== this.#run) return;
    }
    if (!res.ok) {
      this.#set('unavailable');
      this.#announce(
        gone(res.status) ? this.host.m.failures.session_expired : this.host.m.sessionUnavailable,
      );
      return;
    }
    this.#apply(res.data, 'load');
    // Ready means usable: what the session decides (amount, methods) is on screen first.
    await this.host.updateComplete;
    if (run === this.#run) this.#send({ type: 'ready' });
  }

  /**
   * Acts on a session read. `load`: the frame starts; `confirm`: an answer was lost while the
   * card is in memory; `check`: a quiet look while the form is open (expiry, another tab).
   */
  #apply(session: PublicSession, from: 'load' | 'confirm' | 'check'): void {
    this.session = session;
    this.host.adopt(session);
    const verdict = sessionVerdict(session);
    switch (verdict.kind) {
      case 'succeeded':
        return this.#succeed(verdict.result);
      case 'unknown':
        return void this.#confirm();
      case 'ended':
        return this.#end(verdict.code);
      case 'challenge':
        if (from === 'confirm') {
          // The step whose answer was lost led here: it is done, never to be sent again.
          this.#sent = null;
          return this.#openChallenge(verdict.challenge);
        }
        if (from === 'check') return;
        this.resume = verdict.challenge;
        this.#toForm();
        this.#announce(this.host.m.challengePending, 'info');
        return;
      case 'open':
        // After a lost answer an open session does not prove the pay never ran: it may be on
        // its way, or not have claimed the session yet. The same pay under the same key is
        // answered as the BFF stands: replayed if it ended, 409 while it runs, run once if it
        // never arrived. Only an answer the BFF stands behind says "try again".
        if (from === 'confirm') {
          const sent = this.#sent;
          if (sent && afterOpenRead(sent, this.#api!.now()) === 'resend')
            return void this.#resend(sent);
          return this.#fail('try_again_later', true, session.attemptsLeft);
        }
        if (from === 'load') this.#toForm();
        this.#expiry.schedule(session.expiresAt);
    }
  }

  /**
   * Reads the session until the outcome is known, with backoff from `firstRound`; says
   * "confirming" meanwhile.
   */
  async #confirm(firstRound = 0): Promise<void> {
    const api = this.#api;
    if (!api || this.status === 'confirming') return;
    const run = ++this.#run;
    this.#confirming();
    // A lost step backs off from when it was first sent, whatever was answered since.
    const started = this.#sent?.at ?? api.now();
    for (let round = firstRound; ; round++) {
      await sleep(confirmDelay(round, api.now() - started));
      if (run !== this.#run) return;
      const res = await api.session();
      if (run !== this.#run) return;
      if (!res.ok) {
        if (gone(res.status)) return this.#end('session_expired');
        continue;
      }
      const kind = sessionVerdict(res.data).kind;
      if (kind === 'unknown') continue;
      this.status = 'paying';
      return this.#apply(res.data, 'confirm');
    }
  }

  /** A quiet look at the session while the form is open. */
  async #check(): Promise<void> {
    const api = this.#api;
    if (!api || this.status !== 'form' || this.#busy) return;
    const run = this.#run;
    const res = await api.session();
    if (run === this.#run && res.ok && this.status === 'form' && !this.#busy) {
      this.#apply(res.data, 'check');
    }
  }

  #onVisible = (): void => {
    if (!document.hidden) void this.#check();
  };

  /** The card key, read once (`read`: a read of it already under way). */
  #key(read?: Promise<ApiResult<{ key: string }>>): Promise<CryptoKey> {
    // Called once connected (`#load`, and the form a session read opened).
    return this.#card.get(this.#api!, read);
  }

  #encrypt(values: PaymentHost['values']): Promise<string> {
    return this.#card.encrypt(this.#api!, values);
  }

  // ---------------------------------------------------------------- steps

  async #complete(): Promise<void> {
    const challengeId = this.#challengeId;
    const api = this.#api;
    if (!challengeId || !api || this.#busy) return;
    this.#busy = true;
    this.#set('paying');
    try {
      // A fresh ciphertext: the gateway refuses a nonce it has seen.
      const encryptedCard = await this.#encrypt(this.host.values);
      this.#keyMisses = 0;
      const body = { challengeId, encryptedCard };
      const sent = (this.#sent = { kind: 'complete', body, ...newResend(api.now()) });
      this.#step(await api.completeChallenge(body, sent.key));
    } catch {
      // The card key could not be read (nothing was sent): read the session again, waiting
      // longer each time rather than asking for the key every half second.
      const run = this.#run;
      await sleep(Math.min(1_000 * 2 ** this.#keyMisses++, 15_000));
      if (run === this.#run) void this.#confirm();
    } finally {
      this.#busy = false;
    }
  }

  /** The lost pay or bank step again, same body and key (see `#apply`). */
  async #resend(sent: SentStep): Promise<void> {
    const api = this.#api;
    if (!api) return;
    this.#set('paying');
    const res =
      sent.kind === 'pay'
        ? await api.pay(sent.body, sent.key)
        : await api.completeChallenge(sent.body, sent.key);
    if (!res.ok && res.status === 429) {
      // Rate-limited before the BFF looked at the key: no word on the first pay, which may
      // still be on its way. Wait, read the session, send it again; never "try again".
      const run = this.#run;
      this.#confirming();
      await sleep(LIMITED_WAIT_MS);
      if (run !== this.#run) return;
      this.status = 'paying';
      return void this.#confirm();
    }
    if (firstStillRuns(res)) {
      // The first pay is alive (e.g. a plan pay reading its plan before it claims the
      // session): no resend used up; read the session again, a little later each time.
      sent.running++;
      return void this.#confirm(sent.running);
    }
    sent.again++;
    this.#step(res);
  }

  #step(res: ApiResult<PayResult>): void {
    const verdict = stepVerdict(res);
    // An answer the BFF stands behind ends the pay: nothing is sent again after it.
    if (verdict.kind !== 'confirm') this.#sent = null;
    switch (verdict.kind) {
      case 'result':
        return this.#result(verdict.result);
      case 'confirm':
        return void this.#confirm();
      case 'expired':
        return this.#end('session_expired');
      case 'refused':
        return this.#fail('try_again_later', true, this.session?.attemptsLeft ?? 0);
    }
  }

  #result(result: Settled): void {
    switch (result.status) {
      case 'succeeded':
        return this.#succeed(result);
      case 'challenge':
        return this.#openChallenge({ ...result, answered: false });
      case 'failed':
        return this.#fail(result.error.code, result.error.retryable, result.attemptsLeft);
    }
  }

  #openChallenge(challenge: PendingChallenge): void {
    this.#challengeId = challenge.challengeId;
    this.resume = null;
    // Answered before a reload: only the validate call is left.
    if (challenge.answered) return void this.#complete();
    this.#set('challenge');
    this.#announce(this.host.m.challengeOpened, 'info');
    // The BFF's challenge pages speak the form's language.
    const url = new URL(challenge.challengeUrl, location.href);
    url.searchParams.set('locale', this.host.uiLocale);
    this.#send({
      type: 'challenge',
      challengeId: challenge.challengeId,
      challengeUrl: url.href,
      windowSize: challenge.windowSize,
    });
  }

  #succeed(result: Extract<Settled, { status: 'succeeded' }>): void {
    if (this.status === 'succeeded') return;
    this.#challengeId = null;
    this.#expiry.clear();
    this.#set('succeeded');
    this.host.clearCard();
    const { paymentId, authorizationCode, amount, subscriptionId, method, trial } = result.payment;
    this.#announce(successNotice(this.host.m, amount, trial), 'info');
    this.#send({
      type: 'succeeded',
      method,
      payment: {
        paymentId,
        authorizationCode,
        amount,
        ...(subscriptionId ? { subscriptionId } : {}),
        ...(trial ? { trial } : {}),
      },
    });
  }

  #fail(code: FailureCode, retryable: boolean, attemptsLeft: number): void {
    // A card refused as unreadable may have been sealed with a key the gateway has rotated.
    if (code === 'invalid_card') this.#card = new CardKey();
    if (this.session) this.session = { ...this.session, attemptsLeft };
    const canRetry = retryable && attemptsLeft > 0;
    const m = this.host.m;
    let message = m.failures[code];
    if (canRetry && code !== 'try_again_later')
      message += ` ${plural(m.attemptsLeft, attemptsLeft)}`;
    if (canRetry) this.#toForm();
    this.#failed(code, message, canRetry);
  }

  /** The session cannot take a payment any more; the page hears it as a final failure. */
  #end(code: FailureCode): void {
    this.#expiry.clear();
    this.resume = null;
    this.#failed(code, this.host.m.failures[code], false);
  }

  /** Tells the shopper and the page; a failure that cannot be retried ends the form. */
  #failed(code: FailureCode, message: string, retryable: boolean): void {
    this.#challengeId = null;
    if (!retryable) this.#set('ended');
    this.#announce(message);
    this.#send({ type: 'failed', code, message, retryable });
  }

  #toForm(): void {
    this.#set('form');
    // The session's end may have passed while it paid (its look then found no form open).
    // A bank step left waiting holds the session open past its end: nothing to count then.
    if (this.session && !this.resume) this.#expiry.schedule(this.session.expiresAt);
    if (this.#refocus) this.host.focusForm();
    this.#refocus = false;
    // Fetch the key while the shopper types.
    void this.#key().catch(() => undefined);
  }

  #confirming(): void {
    this.#set('confirming');
    this.#announce(this.host.m.confirming, 'info');
  }

  #set(status: Status): void {
    this.status = status;
    // The bank notice (and any other) goes with the step that showed it.
    if (status === 'paying') this.#announce('', 'info');
    this.host.requestUpdate();
  }

  #announce(text: string, kind: 'info' | 'failure' = 'failure'): void {
    this.notice = text;
    this.noticeKind = kind;
    this.host.requestUpdate();
  }

  #send(message: FrameToHostMessage): void {
    this.host.send(message);
  }
}
