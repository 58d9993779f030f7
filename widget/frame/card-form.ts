/**
 * `<card-form>`: the card form inside the BFF's frame. It gets the client secret from the host
 * element over a MessageChannel and hands the payment to its controller
 * (`payment-controller.ts`); the inputs come from one table (`fields.ts`) and the markup from
 * one template (`card-form.view.ts`). Card data stays in this element's memory only.
 *
 * Importing this module does not register the tag; `./index.ts` does.
 *
 * @csspart form - the form (everything is themed through the host's `--checkout-*` properties)
 */
import { LitElement } from 'lit';
import type { TemplateResult } from 'lit';
import type { ChallengeWindowSize, PaymentMethod, PublicSession } from '../../contract/checkout';
import type { CardBrand } from '../card/brand';
import { detectBrand, securityCodeLength } from '../card/brand';
import type { Messages } from '../i18n/messages';
import { plural } from '../i18n/messages';
import type { Locale, Theme } from '../protocol/constants';
import { resolveLocale } from '../protocol/constants';
import type { FieldName, FrameToHostMessage, HostToFrameMessage } from '../protocol/messages';
import { isHostToFrameMessage, sanitizeTheme } from '../protocol/messages';
import type { CardFormView } from './card-form.view';
import { renderCardForm } from './card-form.view';
import { FIELDS, NEXT_FIELD } from './fields';
import type { FormErrors, FormValues } from './form-model';
import { errorText, FIELD_ORDER, fieldStates, validateForm } from './form-model';
import { frameData } from './page-data';
import { PaymentController } from './payment-controller';

/** Styles: adopted from the frame page's data (`./index.ts` sets `CardForm.styles`). */
export class CardForm extends LitElement implements CardFormView {
  static override properties = {
    locale: { type: String },
    values: { state: true },
    touched: { state: true },
    submitted: { state: true },
    hideButton: { state: true },
    submitLabel: { state: true },
  };

  /** `pt-BR` or `en`; defaults to the page's `?locale=`. */
  declare locale: string;
  declare values: FormValues;
  declare touched: ReadonlySet<FieldName>;
  declare submitted: boolean;
  declare hideButton: boolean;
  declare submitLabel: string | null;

  readonly flow = new PaymentController(this);
  challengeWindowSize: ChallengeWindowSize = '05';

  #port: MessagePort | null = null;
  #resizeObserver: ResizeObserver | null = null;
  #lastHeight = -1;
  #theme: Theme = {};

  constructor() {
    super();
    const params = new URLSearchParams(location.search);
    this.locale = params.get('locale') ?? 'pt-BR';
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
    this.hideButton = false;
    this.submitLabel = null;
  }

  /** The texts the BFF wrote into the frame page, in the page's language. */
  get m(): Messages {
    return frameData().messages;
  }

  get uiLocale(): Locale {
    return resolveLocale(this.locale);
  }

  get brand(): CardBrand | null {
    return detectBrand(this.values.cardNumber);
  }

  // ---------------------------------------------------------------- lifecycle

  /** The brands' symbols, once, beside what Lit renders: the marks `<use>` them by id. */
  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    const sprite = document.createElement('template');
    sprite.innerHTML = `<svg class="sprite" aria-hidden="true">${frameData().sprite}</svg>`;
    root.appendChild(sprite.content);
    return root;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The frame page exists for this element only: let its height be the element's.
    document.body.style.margin = '0';
    // The page's first script took the host's `init` and started the reads (boot.ts).
    window.cardFormBoot?.onStart(({ init, port, api, session, publicKey }) => {
      if (!this.isConnected) return;
      this.#port = port;
      port.onmessage = (e: MessageEvent) => {
        if (isHostToFrameMessage(e.data)) this.#onHostMessage(e.data);
      };
      this.locale = init.locale;
      this.hideButton = init.hideButton;
      this.submitLabel = init.submitLabel ?? null;
      this.challengeWindowSize = init.challengeWindowSize;
      this.#applyTheme(init.theme);
      // A height measured before the port existed went nowhere: send it again. Before the first
      // layout there is none, and measuring here would force one: the observer will report it.
      if (this.#lastHeight !== -1) {
        this.#lastHeight = -1;
        this.#reportHeight();
      }
      this.flow.connect(api, { session, publicKey });
    });
    // The observer measures after layout; measuring in `updated()` forced a layout per render.
    this.#resizeObserver = new ResizeObserver(() => this.#reportHeight());
    this.#resizeObserver.observe(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#resizeObserver?.disconnect();
    this.#port?.close();
  }

  // ---------------------------------------------------------------- host

  send(message: FrameToHostMessage): void {
    this.#port?.postMessage(message);
  }

  #onHostMessage(message: HostToFrameMessage): void {
    switch (message.type) {
      case 'submit':
        void this.#submit();
        break;
      case 'theme':
        this.#applyTheme(message.theme);
        break;
      case 'viewport':
        this.challengeWindowSize = message.challengeWindowSize;
        break;
      case 'challenge-answered':
        this.flow.onChallengeAnswered(message.challengeId);
        break;
      case 'challenge-closed':
        void this.flow.onChallengeClosed(message.challengeId, message.reason);
        break;
      case 'renew':
        // A new session of the same page after this one expired: what was typed stays.
        if (this.flow.status === 'ended') {
          // Null for what is not a client secret.
          const api = window.cardFormBoot?.createApi(message.clientSecret);
          if (api) this.flow.connect(api);
        }
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
    this.send({ type: 'resize', height });
  }

  // ---------------------------------------------------------------- for the controller

  adopt(session: PublicSession): void {
    const method = session.methods.includes(this.values.method)
      ? this.values.method
      : (session.methods[0] ?? 'credit');
    const installments = Math.min(this.values.installments, session.maxInstallments) || 1;
    this.values = { ...this.values, method, installments };
  }

  clearCard(): void {
    this.values = { ...this.values, cardNumber: '', securityCode: '', expiry: '' };
  }

  async focusForm(): Promise<void> {
    await this.updateComplete;
    const pay = this.hideButton ? null : this.#control('pay');
    (pay ?? this.#control('cardNumber'))?.focus();
  }

  #control(name: string): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>(`[name="${name}"],[data-testid="${name}"]`);
  }

  // ---------------------------------------------------------------- input handlers

  #setValue<K extends keyof FormValues>(field: K, value: FormValues[K]): void {
    this.values = { ...this.values, [field]: value };
    const errors = validateForm(this.values);
    this.send({
      type: 'change',
      brand: this.brand,
      complete: Object.keys(errors).length === 0,
      fields: fieldStates(this.values, errors),
    });
  }

  onInput = (e: InputEvent): void => {
    const input = e.target as HTMLInputElement;
    const name = input.name as FieldName;
    const spec = FIELDS[name];
    const deleting = e.inputType?.startsWith('delete') ?? false;
    const value = spec.format ? spec.format(input, deleting, this.brand) : input.value;
    if (name === 'cardNumber') {
      // A shorter code for the new brand (Amex 4 → Visa 3) keeps its first digits.
      const code = this.values.securityCode.slice(0, securityCodeLength(detectBrand(value)));
      this.values = { ...this.values, securityCode: code };
    }
    this.#setValue(name, value);
    // Move on from a complete, valid field when the shopper typed its last character.
    const next = NEXT_FIELD[name];
    if (
      next &&
      !deleting &&
      spec.complete?.(value) &&
      input.selectionStart === value.length &&
      // The render root is the shadow root (`createRenderRoot`).
      (this.renderRoot as ShadowRoot).activeElement === input
    ) {
      this.#control(next)?.focus();
    }
  };

  onBlur = (e: FocusEvent): void => {
    const name = (e.target as HTMLInputElement).name as FieldName;
    if (!FIELD_ORDER.includes(name) || this.touched.has(name)) return;
    this.touched = new Set([...this.touched, name]);
  };

  onMethodChange = (e: Event): void => {
    const method = (e.target as HTMLInputElement).value as PaymentMethod;
    this.values = { ...this.values, method, installments: 1 };
  };

  onInstallmentsChange = (e: Event): void => {
    this.values = {
      ...this.values,
      installments: Number((e.target as HTMLSelectElement).value) || 1,
    };
  };

  onSubmit = (e: SubmitEvent): void => {
    e.preventDefault();
    void this.#submit();
  };

  /** Validates, then lets the controller pay (or continue the bank step). */
  async #submit(): Promise<void> {
    if (this.flow.status !== 'form') return;
    this.submitted = true;
    const errors: FormErrors = validateForm(this.values);
    const invalid = FIELD_ORDER.filter((f) => errors[f]);
    if (invalid.length > 0) {
      this.flow.notice = plural(this.m.errors.fixFields, invalid.length);
      this.flow.noticeKind = 'failure';
      this.requestUpdate();
      await this.updateComplete;
      this.#control(invalid[0]!)?.focus();
      return;
    }
    await this.flow.submit();
  }

  // ---------------------------------------------------------------- render

  shownError(name: FieldName): string {
    if (!this.submitted && !this.touched.has(name)) return '';
    const error = validateForm(this.values)[name];
    return error ? errorText(frameData().fieldErrors, name, error, this.brand) : '';
  }

  override render(): TemplateResult {
    return renderCardForm(this);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'card-form': CardForm;
  }
}
