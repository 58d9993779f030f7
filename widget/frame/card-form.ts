/**
 * `<card-form>`: the card form inside the BFF's frame. It gets the client secret from the host
 * element over a MessageChannel, reads the session, and pays: it encrypts the card in the
 * browser, sends it to the BFF on its own origin, and runs the debit 3DS challenge with the
 * host's dialog. Outcomes are always the BFF's answers; a window message only says "go ask".
 *
 * Importing this module does not register the tag; `./index.ts` does.
 *
 * @csspart form - the form (everything is themed through the host's `--checkout-*` properties)
 */
import { html, LitElement, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type {
  ChallengeWindowSize,
  FailureCode,
  PayBody,
  PayResult,
  PaymentMethod,
  PublicSession,
} from '../../server/bff/checkout-api';
import { BRAND_NAMES, detectBrand, securityCodeLength } from '../card/brand';
import { formatDocument, parseDocument } from '../card/document';
import { formatExpiryInput } from '../card/expiry';
import { formatBRL, installmentOptions } from '../card/money';
import { digitsOnly, formatCardInput } from '../card/number';
import { encryptCard, importCardKey } from '../crypto/encrypt-card';
import { collectDeviceInfo } from '../device/device-info';
import { messagesFor } from '../i18n';
import type { Messages } from '../i18n/messages';
import type { Locale, Theme } from '../protocol/constants';
import { resolveLocale } from '../protocol/constants';
import type { FieldName, FrameToHostMessage, HostToFrameMessage } from '../protocol/messages';
import { isHostToFrameMessage, sanitizeTheme } from '../protocol/messages';
import type { CheckoutApi } from './api';
import { asPayResult, createCheckoutApi } from './api';
import { cardFormStyles } from './card-form.styles';
import { connectToHost } from './connection';
import type { FormErrors, FormValues } from './form-model';
import {
  cardSecrets,
  errorText,
  FIELD_ORDER,
  fieldStates,
  NAME_MAX,
  validateForm,
} from './form-model';

type Status =
  | 'connecting'
  | 'loading'
  | 'unavailable'
  | 'form'
  | 'paying'
  | 'challenge'
  | 'succeeded'
  | 'ended';

/** One anti-fraud fingerprint per page load. */
const FINGERPRINT = crypto.randomUUID();

export class CardForm extends LitElement {
  static override styles = cardFormStyles;

  static override properties = {
    session: { type: String },
    origin: { type: String },
    locale: { type: String },
    status: { state: true },
    values: { state: true },
    touched: { state: true },
    submitted: { state: true },
    publicSession: { state: true },
    notice: { state: true },
    noticeKind: { state: true },
    hideButton: { state: true },
    submitLabel: { state: true },
  };

  /** The session id (`cs_…`, not the secret); defaults to the page's `?session=`. */
  declare session: string;
  /** The merchant origin of the session, written by the BFF into the frame page. */
  declare origin: string | null;
  /** `pt-BR` or `en`; defaults to the page's `?locale=`. */
  declare locale: string;
  declare status: Status;
  declare values: FormValues;
  declare touched: ReadonlySet<FieldName>;
  declare submitted: boolean;
  declare publicSession: PublicSession | null;
  /** The text of the one live region (failures, "fix N fields", success). */
  declare notice: string;
  declare noticeKind: 'info' | 'failure';
  declare hideButton: boolean;
  declare submitLabel: string | null;

  #api: CheckoutApi | null = null;
  #port: MessagePort | null = null;
  #cardKey: Promise<CryptoKey> | null = null;
  /** Synchronous guard: a double click pays once. */
  #busy = false;
  #challengeId: string | null = null;
  #challengeWindowSize: ChallengeWindowSize = '05';
  #disconnect: () => void = () => {};
  #resizeObserver: ResizeObserver | null = null;
  #lastHeight = -1;
  #theme: Theme = {};

  constructor() {
    super();
    const params = new URLSearchParams(location.search);
    this.session = params.get('session') ?? '';
    this.origin = null;
    this.locale = params.get('locale') ?? 'pt-BR';
    this.status = 'connecting';
    this.values = {
      cardNumber: '',
      cardholderName: '',
      expiry: '',
      securityCode: '',
      document: '',
      method: 'credit',
      installments: 1,
    };
    this.touched = new Set();
    this.submitted = false;
    this.publicSession = null;
    this.notice = '';
    this.noticeKind = 'info';
    this.hideButton = false;
    this.submitLabel = null;
  }

  get #m(): Messages {
    return messagesFor(this.#locale);
  }

  get #locale(): Locale {
    return resolveLocale(this.locale);
  }

  // ---------------------------------------------------------------- lifecycle

  override connectedCallback(): void {
    super.connectedCallback();
    // The frame page exists for this element only: let its height be the element's.
    document.body.style.margin = '0';
    this.#disconnect = connectToHost(this.session, this.origin, ({ init, port }) => {
      this.#port = port;
      port.onmessage = (e: MessageEvent) => {
        if (isHostToFrameMessage(e.data)) this.#onHostMessage(e.data);
      };
      this.locale = init.locale;
      this.hideButton = init.hideButton;
      this.submitLabel = init.submitLabel ?? null;
      this.#challengeWindowSize = init.challengeWindowSize;
      this.#applyTheme(init.theme);
      this.#api = createCheckoutApi(init.clientSecret);
      // Heights measured before the port existed went nowhere: report the current one.
      this.#lastHeight = -1;
      this.#reportHeight();
      void this.#loadSession();
    });
    this.#resizeObserver = new ResizeObserver(() => this.#reportHeight());
    this.#resizeObserver.observe(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#disconnect();
    this.#resizeObserver?.disconnect();
    this.#port?.close();
  }

  // ---------------------------------------------------------------- host messages

  #send(message: FrameToHostMessage): void {
    this.#port?.postMessage(message);
  }

  #onHostMessage(message: HostToFrameMessage): void {
    switch (message.type) {
      case 'submit':
        void this.#pay();
        break;
      case 'theme':
        this.#applyTheme(message.theme);
        break;
      case 'viewport':
        this.#challengeWindowSize = message.challengeWindowSize;
        break;
      case 'challenge-answered':
        if (message.challengeId === this.#challengeId) void this.#completeChallenge();
        break;
      case 'challenge-closed':
        if (message.challengeId === this.#challengeId) void this.#cancelChallenge(message.reason);
        break;
    }
  }

  #applyTheme(input: unknown): void {
    for (const prop of Object.keys(this.#theme)) this.style.removeProperty(prop);
    this.#theme = sanitizeTheme(input);
    for (const [prop, value] of Object.entries(this.#theme)) this.style.setProperty(prop, value);
  }

  #reportHeight(): void {
    const height = Math.ceil(this.getBoundingClientRect().height);
    if (height === this.#lastHeight) return;
    this.#lastHeight = height;
    this.#send({ type: 'resize', height });
  }

  // ---------------------------------------------------------------- session

  async #loadSession(): Promise<void> {
    if (!this.#api) return;
    this.status = 'loading';
    // The card key and the session in parallel: neither waits for the other.
    void this.#key().catch(() => undefined);
    const res = await this.#api.session();
    if (!res.ok) {
      this.status = 'unavailable';
      this.#announce(
        res.status === 401 || res.status === 404 || res.status === 410
          ? this.#m.failures.session_expired
          : this.#m.sessionUnavailable,
        'failure',
      );
      return;
    }
    const session = res.data;
    this.publicSession = session;
    this.values = {
      ...this.values,
      method: session.methods.includes('credit') ? 'credit' : 'debit',
      installments: 1,
    };
    if (session.status === 'succeeded' && session.outcome) {
      this.#handleResult(session.outcome);
    } else if (session.status === 'expired') {
      this.#end('session_expired');
    } else if (session.status === 'failed') {
      const outcome = session.outcome;
      this.#end(
        outcome?.status === 'failed'
          ? outcome.error.code
          : session.attemptsLeft > 0
            ? 'try_again_later'
            : 'attempts_exhausted',
      );
    } else {
      this.status = 'form';
    }
    this.#send({ type: 'ready' });
  }

  #key(): Promise<CryptoKey> {
    const api = this.#api;
    if (!api) return Promise.reject(new Error('not connected'));
    this.#cardKey ??= api.publicKey().then((res) => {
      if (!res.ok || typeof res.data?.key !== 'string') throw new Error('public key unavailable');
      return importCardKey(res.data.key);
    });
    this.#cardKey.catch(() => {
      this.#cardKey = null;
    });
    return this.#cardKey;
  }

  // ---------------------------------------------------------------- input handlers

  #setValue<K extends keyof FormValues>(field: K, value: FormValues[K]): void {
    this.values = { ...this.values, [field]: value };
    this.#emitChange();
  }

  #emitChange(): void {
    const errors = this.#errors();
    const fields = fieldStates(this.values, errors);
    this.#send({
      type: 'change',
      brand: detectBrand(this.values.cardNumber),
      complete: Object.keys(errors).length === 0,
      fields,
    });
  }

  #errors(): FormErrors {
    return validateForm(this.values);
  }

  #onCardNumberInput = (e: InputEvent): void => {
    const input = e.target as HTMLInputElement;
    const { value, caret } = formatCardInput(
      input.value,
      input.selectionStart ?? input.value.length,
    );
    input.value = value;
    if (document.activeElement === this || this.shadowRoot?.activeElement === input) {
      input.setSelectionRange(caret, caret);
    }
    const brand = detectBrand(value);
    const code = this.values.securityCode.slice(0, securityCodeLength(brand));
    this.values = { ...this.values, securityCode: code };
    this.#setValue('cardNumber', value);
  };

  #onExpiryInput = (e: InputEvent): void => {
    const input = e.target as HTMLInputElement;
    const deleting = e.inputType?.startsWith('delete') ?? false;
    input.value = formatExpiryInput(input.value, deleting);
    this.#setValue('expiry', input.value);
  };

  #onSecurityCodeInput = (e: InputEvent): void => {
    const input = e.target as HTMLInputElement;
    const max = securityCodeLength(detectBrand(this.values.cardNumber));
    input.value = input.value.replace(/\D/g, '').slice(0, max);
    this.#setValue('securityCode', input.value);
  };

  #onNameInput = (e: InputEvent): void => {
    this.#setValue('cardholderName', (e.target as HTMLInputElement).value);
  };

  #onDocumentInput = (e: InputEvent): void => {
    const input = e.target as HTMLInputElement;
    input.value = formatDocument(input.value);
    this.#setValue('document', input.value);
  };

  #onBlur = (e: FocusEvent): void => {
    const name = (e.target as HTMLInputElement).name as FieldName;
    if (!FIELD_ORDER.includes(name) || this.touched.has(name)) return;
    this.touched = new Set([...this.touched, name]);
  };

  #onMethodChange = (e: Event): void => {
    const method = (e.target as HTMLInputElement).value as PaymentMethod;
    this.values = { ...this.values, method, installments: 1 };
  };

  #onInstallmentsChange = (e: Event): void => {
    this.values = {
      ...this.values,
      installments: Number((e.target as HTMLSelectElement).value) || 1,
    };
  };

  #onSubmit = (e: SubmitEvent): void => {
    e.preventDefault();
    void this.#pay();
  };

  // ---------------------------------------------------------------- paying

  async #pay(): Promise<void> {
    if (this.#busy || this.status !== 'form' || !this.#api || !this.publicSession) return;
    this.submitted = true;
    const errors = this.#errors();
    const invalid = FIELD_ORDER.filter((f) => errors[f]);
    if (invalid.length > 0) {
      this.#announce(this.#m.errors.fixFields(invalid.length), 'failure');
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>(`[name="${invalid[0]}"]`)?.focus();
      return;
    }
    this.#busy = true;
    this.status = 'paying';
    this.#announce('', 'info');
    this.#send({ type: 'submit' });
    const api = this.#api;
    const values = this.values;
    const idempotencyKey = crypto.randomUUID();
    try {
      const encryptedCard = await encryptCard(await this.#key(), cardSecrets(values));
      const document = parseDocument(values.document);
      const brand = detectBrand(values.cardNumber);
      const body: PayBody = {
        method: values.method,
        installments: values.method === 'credit' ? values.installments : 1,
        encryptedCard,
        cardholderName: values.cardholderName.trim(),
        deviceInfo: collectDeviceInfo(),
        fingerprint: FINGERPRINT,
        challengeWindowSize: this.#challengeWindowSize,
        ...(brand ? { brand } : {}),
        last4: digitsOnly(values.cardNumber).slice(-4),
        ...(document ? { document } : {}),
      };
      this.#handleResponse(await api.pay(body, idempotencyKey));
    } catch {
      this.#fail('try_again_later', true, this.publicSession.attemptsLeft);
    } finally {
      this.#busy = false;
    }
  }

  async #completeChallenge(): Promise<void> {
    const challengeId = this.#challengeId;
    const api = this.#api;
    if (!challengeId || !api || this.#busy) return;
    this.#busy = true;
    this.status = 'paying';
    try {
      // A fresh ciphertext: the gateway refuses a nonce it has seen.
      const encryptedCard = await encryptCard(await this.#key(), cardSecrets(this.values));
      this.#handleResponse(
        await api.completeChallenge({ challengeId, encryptedCard }, crypto.randomUUID()),
      );
    } catch {
      this.#fail('try_again_later', true, this.publicSession?.attemptsLeft ?? 0);
    } finally {
      this.#busy = false;
    }
  }

  async #cancelChallenge(reason: 'closed' | 'timeout'): Promise<void> {
    const challengeId = this.#challengeId;
    const api = this.#api;
    if (!challengeId || !api || this.#busy) return;
    this.#busy = true;
    this.status = 'paying';
    try {
      const res = await api.cancelChallenge({ challengeId, reason });
      const result = res.ok ? asPayResult(res.data) : asPayResult(res.body);
      if (result) this.#handleResult(result);
      else {
        this.#fail(
          reason === 'timeout' ? 'challenge_timeout' : 'challenge_canceled',
          true,
          this.publicSession?.attemptsLeft ?? 0,
        );
      }
    } finally {
      this.#busy = false;
    }
  }

  #handleResponse(res: Awaited<ReturnType<CheckoutApi['pay']>>): void {
    const result = res.ok ? asPayResult(res.data) : asPayResult(res.body);
    if (result) return this.#handleResult(result);
    const left = this.publicSession?.attemptsLeft ?? 0;
    if (!res.ok && (res.status === 401 || res.status === 404 || res.status === 410)) {
      this.#end('session_expired');
    } else {
      this.#fail('try_again_later', true, left);
    }
  }

  #handleResult(result: PayResult): void {
    this.#challengeId = null;
    switch (result.status) {
      case 'succeeded': {
        this.status = 'succeeded';
        this.values = { ...this.values, cardNumber: '', securityCode: '', expiry: '' };
        const { paymentId, authorizationCode, amount, subscriptionId, method } = result.payment;
        this.#announce(
          `${this.#m.succeeded}. ${this.#m.succeededDetail(formatBRL(amount))}`,
          'info',
        );
        this.#send({
          type: 'succeeded',
          method,
          payment: {
            paymentId,
            authorizationCode,
            amount,
            ...(subscriptionId ? { subscriptionId } : {}),
          },
        });
        break;
      }
      case 'challenge':
        this.status = 'challenge';
        this.#challengeId = result.challengeId;
        this.#announce(this.#m.challengeOpened, 'info');
        this.#send({
          type: 'challenge',
          challengeId: result.challengeId,
          challengeUrl: result.challengeUrl,
          windowSize: result.windowSize,
        });
        break;
      case 'failed':
        this.#fail(result.error.code, result.error.retryable, result.attemptsLeft);
        break;
    }
  }

  #fail(code: FailureCode, retryable: boolean, attemptsLeft: number): void {
    if (this.publicSession) this.publicSession = { ...this.publicSession, attemptsLeft };
    const canRetry = retryable && attemptsLeft > 0;
    let message = this.#m.failures[code];
    if (canRetry && code !== 'try_again_later') message += ` ${this.#m.attemptsLeft(attemptsLeft)}`;
    this.status = canRetry ? 'form' : 'ended';
    this.#announce(message, 'failure');
    this.#send({ type: 'failed', code, message, retryable: canRetry });
  }

  /** The session cannot take a payment any more; the page hears it as a final failure. */
  #end(code: FailureCode): void {
    const message = this.#m.failures[code];
    this.status = 'ended';
    this.#announce(message, 'failure');
    this.#send({ type: 'failed', code, message, retryable: false });
  }

  #announce(text: string, kind: 'info' | 'failure'): void {
    this.notice = text;
    this.noticeKind = kind;
  }

  // ---------------------------------------------------------------- render

  protected override updated(): void {
    this.#reportHeight();
  }

  override render(): TemplateResult {
    const m = this.#m;
    // The frame is a document of its own: one main landmark and one h1 (visually hidden).
    // The notice is the one live region; always in the DOM so screen readers hear changes.
    const kind = `${this.noticeKind === 'failure' ? 'failure' : ''} ${this.notice ? 'shown' : ''}`;
    return html`<main>
      <h1 class="sr-only">${m.frameTitle}</h1>
      <div class="notice ${kind}" role="alert" aria-live="assertive" aria-atomic="true">
        ${this.notice}
      </div>
      ${this.#renderBody(m)}
    </main>`;
  }

  #renderBody(m: Messages): TemplateResult | typeof nothing {
    switch (this.status) {
      case 'connecting':
        return html`<p>${m.waitingForHost}</p>`;
      case 'loading':
        return html`<p>${m.loading}</p>`;
      case 'unavailable':
      case 'ended':
        return nothing;
      case 'succeeded':
        return html`<div class="done"><h2>${m.succeeded}</h2></div>`;
      default:
        return this.#renderForm(m);
    }
  }

  #renderField(
    m: Messages,
    name: FieldName,
    label: string,
    control: TemplateResult,
    opts: { hint?: string; extra?: TemplateResult } = {},
  ): TemplateResult {
    return html`<div class="field">
      <div class="label"><label for=${name}>${label}</label>${opts.extra ?? nothing}</div>
      ${control}
      ${opts.hint ? html`<span class="hint" id="${name}-hint">${opts.hint}</span>` : nothing}
      <p class="error" id="${name}-error">${this.#shownError(m, name)}</p>
    </div>`;
  }

  #shownError(m: Messages, name: FieldName): string {
    if (!this.submitted && !this.touched.has(name)) return '';
    const error = this.#errors()[name];
    return error ? errorText(m, name, error, detectBrand(this.values.cardNumber)) : '';
  }

  #describedBy(name: FieldName, extra = ''): string {
    return `${name}-error ${extra}`.trim();
  }

  #invalid(name: FieldName): 'true' | 'false' {
    return this.#shownError(this.#m, name) ? 'true' : 'false';
  }

  #renderForm(m: Messages): TemplateResult {
    const session = this.publicSession;
    const v = this.values;
    const brand = detectBrand(v.cardNumber);
    const cvvDigits = securityCodeLength(brand);
    const busy = this.status === 'paying' || this.status === 'challenge';
    const amount = session?.plan?.amount ?? session?.amount ?? 0;
    const methods = session?.methods ?? ['credit'];
    const plan = session?.plan;
    const showInstallments = v.method === 'credit' && !plan && (session?.maxInstallments ?? 1) > 1;
    const every = plan ? m.every(plan.intervalDays) : '';
    return html`${
        plan
          ? html`<p class="hint" part="plan">
              <strong>${plan.name}</strong><br />${formatBRL(amount)} ${every}
            </p>`
          : nothing
      }
      <form
        part="form"
        novalidate
        aria-busy=${busy ? 'true' : 'false'}
        @submit=${this.#onSubmit}
        @focusout=${this.#onBlur}
      >
        ${
          methods.length > 1
            ? html`<fieldset>
                <legend>${m.method}</legend>
                <div class="methods">
                  ${methods.map(
                    (method) =>
                      html`<label
                        ><input
                          type="radio"
                          name="method"
                          value=${method}
                          .checked=${v.method === method}
                          ?disabled=${busy}
                          @change=${this.#onMethodChange}
                        />${method === 'credit' ? m.credit : m.debit}</label
                      >`,
                  )}
                </div>
              </fieldset>`
            : nothing
        }
        ${this.#renderField(
          m,
          'cardNumber',
          m.cardNumber,
          html`<input
            id="cardNumber"
            name="cardNumber"
            type="text"
            inputmode="numeric"
            autocomplete="cc-number"
            autocorrect="off"
            spellcheck="false"
            required
            aria-invalid=${this.#invalid('cardNumber')}
            aria-describedby=${this.#describedBy('cardNumber', brand ? 'cardNumber-brand' : '')}
            .value=${v.cardNumber}
            ?readonly=${busy}
            @input=${this.#onCardNumberInput}
          />`,
          {
            extra: brand
              ? html`<span class="brand" id="cardNumber-brand" data-brand=${brand}
                  >${m.cardBrand(BRAND_NAMES[brand])}</span
                >`
              : html``,
          },
        )}
        ${this.#renderField(
          m,
          'cardholderName',
          m.cardholderName,
          html`<input
            id="cardholderName"
            name="cardholderName"
            type="text"
            autocomplete="cc-name"
            autocapitalize="characters"
            spellcheck="false"
            maxlength=${NAME_MAX}
            required
            aria-invalid=${this.#invalid('cardholderName')}
            aria-describedby=${this.#describedBy('cardholderName')}
            .value=${v.cardholderName}
            ?readonly=${busy}
            @input=${this.#onNameInput}
          />`,
        )}
        <div class="row">
          ${this.#renderField(
            m,
            'expiry',
            m.expiry,
            html`<input
              id="expiry"
              name="expiry"
              type="text"
              inputmode="numeric"
              autocomplete="cc-exp"
              placeholder=${m.expiryHint}
              maxlength="7"
              required
              aria-invalid=${this.#invalid('expiry')}
              aria-describedby=${this.#describedBy('expiry', 'expiry-hint')}
              .value=${v.expiry}
              ?readonly=${busy}
              @input=${this.#onExpiryInput}
            />`,
            { hint: m.expiryHint },
          )}
          ${this.#renderField(
            m,
            'securityCode',
            m.securityCode,
            html`<input
              id="securityCode"
              name="securityCode"
              type="text"
              inputmode="numeric"
              autocomplete="cc-csc"
              maxlength=${cvvDigits}
              required
              aria-invalid=${this.#invalid('securityCode')}
              aria-describedby=${this.#describedBy('securityCode', 'securityCode-hint')}
              .value=${v.securityCode}
              ?readonly=${busy}
              @input=${this.#onSecurityCodeInput}
            />`,
            { hint: m.securityCodeHint(cvvDigits) },
          )}
        </div>
        ${this.#renderField(
          m,
          'document',
          `${m.document} (${m.optional})`,
          html`<input
            id="document"
            name="document"
            type="text"
            inputmode="numeric"
            autocomplete="off"
            maxlength="18"
            aria-invalid=${this.#invalid('document')}
            aria-describedby=${this.#describedBy('document', 'document-hint')}
            .value=${v.document}
            ?readonly=${busy}
            @input=${this.#onDocumentInput}
          />`,
          { hint: m.documentHint },
        )}
        ${
          showInstallments && session
            ? html`<div class="field">
                <label for="installments">${m.installments}</label>
                <select
                  id="installments"
                  name="installments"
                  ?disabled=${busy}
                  @change=${this.#onInstallmentsChange}
                >
                  ${installmentOptions(amount, session.maxInstallments).map(
                    (o) =>
                      html`<option value=${o.count} ?selected=${o.count === v.installments}>
                        ${m.installmentOption(o.count, formatBRL(o.first), formatBRL(o.rest))}
                      </option>`,
                  )}
                </select>
              </div>`
            : nothing
        }
        ${
          this.hideButton
            ? nothing
            : html`${plan ? html`<p class="hint" id="consent">${m.consent(formatBRL(amount), every)}</p>` : nothing}<button
                  type="submit"
                  data-testid="pay"
                  ?disabled=${busy}
                  aria-disabled=${busy ? 'true' : 'false'}
                >
                  ${busy ? m.paying : (this.submitLabel ?? (plan ? m.subscribe : m.pay(formatBRL(amount))))}
                </button>`
        }
      </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'card-form': CardForm;
  }
}
