/**
 * `<card-checkout>`: the element a merchant page puts where the card form goes. It embeds the
 * BFF's frame (card data never touches the merchant page), hands it the client secret over a
 * MessageChannel, sizes it, runs the 3DS challenge dialog and re-dispatches what the frame
 * reports as typed events.
 *
 * A plain custom element rather than Lit: the host script is on every checkout page of the
 * merchant and must stay within 8 KB gzip; it renders one iframe and one dialog, which needs
 * no templating. Importing this module does not register the tag; `./index.ts` does.
 *
 * @fires checkout-ready - {@link CheckoutReadyEvent}
 * @fires checkout-change - {@link CheckoutChangeEvent}
 * @fires checkout-submit - {@link CheckoutSubmitEvent}
 * @fires checkout-challenge - {@link CheckoutChallengeEvent}
 * @fires checkout-succeeded - {@link CheckoutSucceededEvent}
 * @fires checkout-failed - {@link CheckoutFailedEvent}
 * @csspart frame - the iframe holding the card form
 * @csspart challenge-dialog - the 3DS challenge `<dialog>`
 * @csspart challenge-header - the dialog's title bar
 * @csspart challenge-close - the dialog's close button
 * @csspart challenge-frame - the iframe of the bank's challenge page
 * @cssprop --checkout-accent-color - buttons and focus (passed into the frame, as are all below)
 * @cssprop --checkout-accent-text-color - text on the accent color
 * @cssprop --checkout-background-color - form background
 * @cssprop --checkout-text-color - text
 * @cssprop --checkout-muted-color - hints
 * @cssprop --checkout-border-color - field borders
 * @cssprop --checkout-error-color - error text and borders
 * @cssprop --checkout-focus-color - focus ring
 * @cssprop --checkout-font-family - font stack (fonts the frame can load: system fonts)
 * @cssprop --checkout-font-size - base font size
 * @cssprop --checkout-radius - corner radius
 * @cssprop --checkout-spacing - base spacing unit
 */
import type { ChallengeWindowSize } from '../../contract/checkout';
import type { Locale, Theme } from '../protocol/constants';
import {
  CHALLENGE_TIMEOUT_MS,
  CHALLENGE_WINDOW_PIXELS,
  chooseChallengeWindowSize,
  resolveLocale,
  sessionIdFromSecret,
  THEME_PROPERTIES,
} from '../protocol/constants';
import type { FrameToHostMessage, HostToFrameMessage, InitMessage } from '../protocol/messages';
import {
  isChallengeAnswered,
  isFrameHello,
  isFrameToHostMessage,
  PROTOCOL,
} from '../protocol/messages';
import {
  CheckoutChallengeEvent,
  CheckoutChangeEvent,
  CheckoutFailedEvent,
  CheckoutReadyEvent,
  CheckoutSubmitEvent,
  CheckoutSucceededEvent,
} from './events';

const TEXT: Record<Locale, { frame: string; challenge: string; close: string }> = {
  'pt-BR': { frame: 'Pagamento com cartão', challenge: 'Confirmação do banco', close: 'Fechar' },
  en: { frame: 'Card payment', challenge: 'Bank confirmation', close: 'Close' },
};

const STYLES = `
:host{display:block}
:host([hidden]){display:none}
[part=frame]{display:block;width:100%;height:0;border:0;overflow:hidden;color-scheme:normal}
dialog{padding:0;border:0;border-radius:8px;background:#fff;color:#1a1a1a;max-width:100vw;max-height:100vh;box-shadow:0 8px 32px rgb(0 0 0/.3)}
dialog::backdrop{background:rgb(0 0 0/.5)}
dialog[data-size="05"]{width:100vw;height:100vh;border-radius:0}
dialog[data-size="05"] [part=challenge-frame]{width:100%;height:calc(100% - 48px)}
header{display:flex;align-items:center;justify-content:space-between;gap:8px;height:48px;padding:0 8px 0 16px;box-sizing:border-box;border-bottom:1px solid #ddd}
h2{margin:0;font:600 16px/1.2 system-ui,sans-serif}
button{display:grid;place-items:center;width:40px;height:40px;border:0;border-radius:4px;background:transparent;color:inherit;font:24px/1 system-ui,sans-serif;cursor:pointer}
button:focus-visible{outline:2px solid #0b57d0;outline-offset:2px}
button:hover{background:#eee}
[part=challenge-frame]{display:block;border:0}
`;

interface OpenChallenge {
  challengeId: string;
  timer: ReturnType<typeof setTimeout>;
}

export class CardCheckout extends HTMLElement {
  static readonly observedAttributes = [
    'endpoint',
    'session',
    'locale',
    'submit-label',
    'hide-button',
  ];

  #root: ShadowRoot;
  /**
   * The card form's iframe, made by each load with its address already set: an iframe put in
   * the page without one first commits an `about:blank` document of its own, on the main
   * thread, before it navigates (≈ 3–5 ms in traces of the bench).
   */
  #frame: HTMLIFrameElement | null = null;
  #dialog: HTMLDialogElement;
  /** Made when a challenge opens, dropped when it closes: no second frame to pay for at load. */
  #challengeFrame: HTMLIFrameElement | null = null;
  #title: HTMLHeadingElement;
  #closeButton: HTMLButtonElement;
  #port: MessagePort | null = null;
  #bffOrigin: string | null = null;
  #challenge: OpenChallenge | null = null;
  #windowSize: ChallengeWindowSize = '05';
  #ready = false;
  /** The frame said its session expired: a new `session` renews it in place. */
  #expired = false;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.innerHTML = `<style>${STYLES}</style><dialog part="challenge-dialog" aria-labelledby="t"><header part="challenge-header"><h2 id="t"></h2><button part="challenge-close" type="button">×</button></header></dialog>`;
    const $ = <T extends Element>(sel: string): T => this.#root.querySelector(sel) as T;
    this.#dialog = $('dialog');
    this.#title = $('h2');
    this.#closeButton = $('button');
    this.#closeButton.addEventListener('click', () => this.#closeChallenge('closed'));
    // Esc: close ourselves so the frame hears about it exactly once.
    this.#dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.#closeChallenge('closed');
    });
    // Browsers may close a modal dialog without a cancelable `cancel` (repeated Esc).
    this.#dialog.addEventListener('close', () => {
      if (!this.#dialog.open) this.#closeChallenge('closed');
    });
  }

  // ---------------------------------------------------------------- attributes

  /** Base URL of the BFF (`https://pay.example.com`). */
  get endpoint(): string {
    return (this.getAttribute('endpoint') ?? '').replace(/\/+$/, '');
  }
  set endpoint(v: string) {
    this.setAttribute('endpoint', v);
  }

  /** The checkout session's client secret (`cs_…_secret_…`). */
  get session(): string {
    return this.getAttribute('session') ?? '';
  }
  set session(v: string) {
    this.setAttribute('session', v);
  }

  /** `pt-BR` (default) or `en`. */
  get locale(): Locale {
    return resolveLocale(this.getAttribute('locale'));
  }
  set locale(v: string) {
    this.setAttribute('locale', v);
  }

  /** Replaces the pay button's text. */
  get submitLabel(): string | null {
    return this.getAttribute('submit-label');
  }
  set submitLabel(v: string | null) {
    if (v === null) this.removeAttribute('submit-label');
    else this.setAttribute('submit-label', v);
  }

  /** Hides the pay button; the page calls `submit()` from its own. */
  get hideButton(): boolean {
    return this.hasAttribute('hide-button');
  }
  set hideButton(v: boolean) {
    this.toggleAttribute('hide-button', v);
  }

  /** True once the frame has reported `checkout-ready`. */
  get ready(): boolean {
    return this.#ready;
  }

  // ---------------------------------------------------------------- lifecycle

  connectedCallback(): void {
    window.addEventListener('message', this.#onWindowMessage);
    window.addEventListener('resize', this.#onResize);
    this.#scheduleLoad();
  }

  disconnectedCallback(): void {
    window.removeEventListener('message', this.#onWindowMessage);
    window.removeEventListener('resize', this.#onResize);
    this.#closeChallenge('closed');
    this.#disconnectPort();
  }

  attributeChangedCallback(name: string, oldValue: string | null, value: string | null): void {
    if (oldValue === value || !this.isConnected) return;
    if (name === 'session' && this.#expired && this.#port && value) {
      // The page replaced an expired session: the frame keeps what the shopper typed.
      this.#expired = false;
      this.#post({ type: 'renew', clientSecret: value });
      return;
    }
    this.#scheduleLoad();
  }

  // ---------------------------------------------------------------- public API

  /** Pays with what is in the form, as the pay button would. Does nothing before ready. */
  submit(): void {
    this.#post({ type: 'submit' });
  }

  /** Reads the `--checkout-*` properties again and passes them to the frame. */
  refreshTheme(): void {
    this.#post({ type: 'theme', theme: this.#readTheme() });
  }

  // ---------------------------------------------------------------- internals

  #loadQueued = false;
  /** The ends of sessions told to the page (`#toldBefore`). */
  #told = new Set<string>();

  /** One (re)load for a burst of attribute changes (an upgrade reports each attribute). */
  #scheduleLoad(): void {
    if (this.#loadQueued) return;
    this.#loadQueued = true;
    queueMicrotask(() => {
      this.#loadQueued = false;
      if (this.isConnected) this.#load();
    });
  }

  #load(): void {
    const text = TEXT[this.locale];
    this.#title.textContent = text.challenge;
    this.#closeButton.setAttribute('aria-label', text.close);
    this.#disconnectPort();
    // A challenge of the frame being replaced: its answer would reach no one. The dialog goes
    // (the frame is no longer told); the new frame finds the bank step in the session.
    this.#closeChallenge('closed');
    this.#ready = false;
    this.#expired = false;
    this.#bffOrigin = null;
    this.#frame?.remove();
    this.#frame = null;
    const sessionId = sessionIdFromSecret(this.session);
    let base: URL | null = null;
    try {
      base = new URL(this.endpoint);
    } catch {
      /* no frame without a valid endpoint */
    }
    if (!base || !sessionId || (base.protocol !== 'https:' && base.protocol !== 'http:')) return;
    this.#bffOrigin = base.origin;
    this.#windowSize = chooseChallengeWindowSize(window.innerWidth, window.innerHeight);
    const url = new URL(`${this.endpoint}/checkout/frame`);
    url.searchParams.set('session', sessionId);
    url.searchParams.set('locale', this.locale);
    url.searchParams.set('origin', location.origin);
    const frame = document.createElement('iframe');
    frame.setAttribute('part', 'frame');
    frame.setAttribute('scrolling', 'no');
    frame.referrerPolicy = 'origin';
    frame.title = text.frame;
    frame.src = url.href;
    this.#dialog.before(frame);
    this.#frame = frame;
  }

  #readTheme(): Theme {
    const style = getComputedStyle(this);
    const theme: Theme = {};
    for (const prop of THEME_PROPERTIES) {
      const value = style.getPropertyValue(prop).trim();
      if (value) theme[prop] = value;
    }
    return theme;
  }

  #disconnectPort(): void {
    this.#port?.close();
    this.#port = null;
  }

  #post(message: HostToFrameMessage): void {
    this.#port?.postMessage(message);
  }

  #onWindowMessage = (event: MessageEvent): void => {
    // Only the BFF origin speaks to us; anything else is ignored without a word.
    if (!this.#bffOrigin || event.origin !== this.#bffOrigin) return;
    const data: unknown = event.data;
    if (isFrameHello(data) && this.#frame && event.source === this.#frame.contentWindow) {
      this.#connect();
    } else if (
      isChallengeAnswered(data) &&
      data.challengeId === this.#challenge?.challengeId &&
      // Only the page in our own challenge iframe: not another window of the BFF origin.
      event.source === this.#challengeFrame?.contentWindow
    ) {
      this.#closeChallenge('answered');
    }
  };

  /** Answers the frame's hello with the client secret and one end of a fresh channel. */
  #connect(): void {
    const target = this.#frame?.contentWindow;
    if (!target || !this.#bffOrigin) return;
    this.#disconnectPort();
    const channel = new MessageChannel();
    this.#port = channel.port1;
    this.#port.onmessage = (e: MessageEvent) => {
      if (isFrameToHostMessage(e.data)) this.#onFrameMessage(e.data);
    };
    const init: InitMessage = {
      protocol: PROTOCOL,
      type: 'init',
      clientSecret: this.session,
      locale: this.locale,
      theme: this.#readTheme(),
      hideButton: this.hideButton,
      challengeWindowSize: this.#windowSize,
      ...(this.submitLabel ? { submitLabel: this.submitLabel.slice(0, 60) } : {}),
    };
    // The exact BFF origin as target: the secret reaches nobody else, even if the frame
    // was navigated away.
    target.postMessage(init, this.#bffOrigin, [channel.port2]);
  }

  #onFrameMessage(message: FrameToHostMessage): void {
    switch (message.type) {
      case 'ready':
        this.#ready = true;
        this.dispatchEvent(new CheckoutReadyEvent());
        break;
      case 'resize':
        if (this.#frame) {
          this.#frame.style.height = `${Math.min(Math.ceil(message.height), 4000)}px`;
        }
        break;
      case 'change':
        this.dispatchEvent(
          new CheckoutChangeEvent(message.brand, message.complete, message.fields),
        );
        break;
      case 'submit':
        this.dispatchEvent(new CheckoutSubmitEvent());
        break;
      case 'challenge':
        this.#openChallenge(message.challengeId, message.challengeUrl, message.windowSize);
        break;
      case 'succeeded':
        if (this.#toldBefore('succeeded')) break;
        this.dispatchEvent(new CheckoutSucceededEvent(message.payment, message.method));
        break;
      case 'failed':
        this.#expired = message.code === 'session_expired';
        if (!message.retryable && this.#toldBefore(`failed:${message.code}`)) break;
        this.dispatchEvent(
          new CheckoutFailedEvent(message.code, message.message, message.retryable),
        );
        break;
    }
  }

  /**
   * Whether the page was told this end of this session already. A frame rebuilt (an attribute
   * changed, the element moved) reads an ended session and says how it ended; the page hears
   * each end once per session.
   */
  #toldBefore(end: string): boolean {
    const key = `${sessionIdFromSecret(this.session) ?? ''}\n${end}`;
    if (this.#told.has(key)) return true;
    this.#told.add(key);
    return false;
  }

  #openChallenge(challengeId: string, challengeUrl: string, size: ChallengeWindowSize): void {
    if (!this.#bffOrigin) return;
    const url = new URL(challengeUrl, `${this.endpoint}/`);
    // The challenge launcher is a BFF page; never open anything else in the dialog.
    if (url.origin !== this.#bffOrigin) return;
    this.#closeChallenge('closed');
    this.#dialog.dataset.size = size;
    const frame = document.createElement('iframe');
    frame.setAttribute('part', 'challenge-frame');
    // Focus goes into the bank's page when the dialog opens, not to the close button.
    frame.autofocus = true;
    frame.allow = 'payment *; publickey-credentials-get *';
    if (size !== '05') {
      const px = CHALLENGE_WINDOW_PIXELS[size];
      frame.width = String(px.width);
      frame.height = String(px.height);
    }
    frame.title = TEXT[this.locale].challenge;
    frame.src = url.href;
    this.#dialog.append(frame);
    this.#challengeFrame = frame;
    this.#challenge = {
      challengeId,
      timer: setTimeout(() => this.#closeChallenge('timeout'), CHALLENGE_TIMEOUT_MS),
    };
    if (!this.#dialog.open) this.#dialog.showModal();
    this.dispatchEvent(new CheckoutChallengeEvent('opened'));
  }

  #closeChallenge(reason: 'answered' | 'closed' | 'timeout'): void {
    const challenge = this.#challenge;
    if (!challenge) return;
    this.#challenge = null;
    clearTimeout(challenge.timer);
    if (this.#dialog.open) this.#dialog.close();
    this.#challengeFrame?.remove();
    this.#challengeFrame = null;
    this.#post(
      reason === 'answered'
        ? { type: 'challenge-answered', challengeId: challenge.challengeId }
        : { type: 'challenge-closed', challengeId: challenge.challengeId, reason },
    );
    this.dispatchEvent(new CheckoutChallengeEvent('closed', reason));
  }

  #onResize = (): void => {
    const size = chooseChallengeWindowSize(window.innerWidth, window.innerHeight);
    if (size === this.#windowSize) return;
    this.#windowSize = size;
    this.#post({ type: 'viewport', challengeWindowSize: size });
  };
}

declare global {
  interface HTMLElementTagNameMap {
    'card-checkout': CardCheckout;
  }
}
