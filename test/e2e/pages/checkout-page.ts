import { expect, type FrameLocator, type Locator, type Page } from '@playwright/test';
import { ChallengeDialog } from './challenge-dialog';

/** What a `checkout-*` event carried, as recorded on the merchant page. */
export interface RecordedEvent {
  type: string;
  brand?: string | null;
  complete?: boolean;
  state?: string;
  reason?: string;
  paymentId?: string;
  subscriptionId?: string;
  authorizationCode?: string;
  amount?: number;
  method?: string;
  code?: string;
  message?: string;
  retryable?: boolean;
}

const EVENT_TYPES = [
  'checkout-ready',
  'checkout-change',
  'checkout-submit',
  'checkout-challenge',
  'checkout-succeeded',
  'checkout-failed',
];

export interface CardInput {
  number: string;
  name?: string;
  /** `MM/YY`. */
  expiry?: string;
  cvv?: string;
}

/** A valid expiry two years ahead, `MM/YY`. */
export function futureExpiry(): string {
  const d = new Date();
  return `12/${String((d.getFullYear() + 2) % 100).padStart(2, '0')}`;
}

/**
 * The demo's payment page: the merchant document with `<card-checkout>`, the card form inside
 * the BFF's frame (reached through frame locators) and the challenge dialog.
 */
export class CheckoutPage {
  readonly host: Locator;
  readonly frame: FrameLocator;
  readonly cardNumber: Locator;
  readonly cardholderName: Locator;
  readonly expiry: Locator;
  readonly securityCode: Locator;
  readonly installments: Locator;
  readonly pay: Locator;
  /** The frame's one live region: outcomes, failures, the bank notice. */
  readonly alert: Locator;
  /** The session-expiry notice. */
  readonly expiryNotice: Locator;
  readonly spinner: Locator;
  readonly acceptedBrands: Locator;
  readonly challenge: ChallengeDialog;

  constructor(
    readonly page: Page,
    private readonly recorded: readonly RecordedEvent[] = [],
  ) {
    this.host = page.locator('card-checkout');
    this.frame = this.host.locator('[part="frame"]').contentFrame();
    this.cardNumber = this.frame.locator('[name="cardNumber"]');
    this.cardholderName = this.frame.locator('[name="cardholderName"]');
    this.expiry = this.frame.locator('[name="expiry"]');
    this.securityCode = this.frame.locator('[name="securityCode"]');
    this.installments = this.frame.locator('[name="installments"]');
    this.pay = this.frame.getByTestId('pay');
    this.alert = this.frame.getByRole('alert');
    this.expiryNotice = this.frame.getByRole('status');
    this.spinner = this.frame.locator('.spinner');
    this.acceptedBrands = this.frame.getByRole('list', { name: /Bandeiras aceitas/ });
    this.challenge = new ChallengeDialog(page);
  }

  /**
   * Records every `checkout-*` event the merchant page sees into the returned array (kept in
   * the test process, so it survives the navigation to the order page). Call before loading.
   */
  static async recordEvents(page: Page): Promise<RecordedEvent[]> {
    const recorded: RecordedEvent[] = [];
    await page.exposeFunction('__recordCheckoutEvent', (e: RecordedEvent) => {
      recorded.push(e);
    });
    await page.addInitScript((types: string[]) => {
      const w = window as unknown as { __recordCheckoutEvent(e: unknown): void };
      for (const type of types) {
        document.addEventListener(
          type,
          (e) => {
            const ev = e as unknown as Record<string, unknown>;
            const pick: Record<string, unknown> = { type };
            for (const k of [
              'brand',
              'complete',
              'state',
              'reason',
              'paymentId',
              'subscriptionId',
              'authorizationCode',
              'amount',
              'method',
              'code',
              'message',
              'retryable',
            ]) {
              if (ev[k] !== undefined) pick[k] = ev[k];
            }
            void w.__recordCheckoutEvent(pick);
          },
          true,
        );
      }
    }, EVENT_TYPES);
    return recorded;
  }

  async events(type?: string): Promise<RecordedEvent[]> {
    const all = [...this.recorded];
    return type ? all.filter((e) => e.type === type) : all;
  }

  async waitForEvent(type: string): Promise<RecordedEvent> {
    await expect
      .poll(async () => (await this.events(type)).length, { message: `waiting for ${type}` })
      .toBeGreaterThan(0);
    return (await this.events(type))[0]!;
  }

  /** The session id the demo rendered (not a secret). */
  async sessionId(): Promise<string> {
    const id = await this.host.getAttribute('data-session-id');
    if (!id) throw new Error('no data-session-id on <card-checkout>');
    return id;
  }

  async waitUntilReady(): Promise<void> {
    await expect(this.cardNumber).toBeVisible();
    await expect(this.pay).toBeEnabled();
  }

  async chooseMethod(method: 'credit' | 'debit'): Promise<void> {
    await this.frame.locator(`input[name="method"][value="${method}"]`).check();
  }

  async fillCard(card: CardInput): Promise<void> {
    await this.cardNumber.fill(card.number);
    await this.cardholderName.fill(card.name ?? 'MARIA DA SILVA');
    await this.expiry.fill(card.expiry ?? futureExpiry());
    await this.securityCode.fill(card.cvv ?? '123');
  }

  async chooseInstallments(n: number): Promise<void> {
    await this.installments.selectOption(String(n));
  }

  /** Fills the form and pays with the given method. */
  async payWith(card: CardInput, method: 'credit' | 'debit' = 'debit'): Promise<void> {
    await this.waitUntilReady();
    await this.chooseMethod(method);
    await this.fillCard(card);
    await this.pay.click();
  }

  /**
   * Pays (debit) with the card the bank challenges (`CARDS.challenge`), until the bank's page
   * shows in the dialog.
   */
  async payIntoChallenge(): Promise<void> {
    await this.payWith({ number: '4000000000002503' }, 'debit');
    await this.challenge.expectOpen();
    await this.challenge.acsFrame();
  }

  fieldError(name: string): Locator {
    return this.frame.locator(`#${name}-error`);
  }

  /**
   * A failure is told once, in the frame's alert, styled as an error; the merchant page does
   * not repeat it (its own text holds no failure at all).
   */
  async expectFailureToldOnce(text: string | RegExp): Promise<void> {
    await expect(this.alert).toContainText(text);
    await expect(this.alert).toHaveClass(/failure/);
    const pageText = await this.page.locator('body').innerText();
    expect(pageText).not.toMatch(/não foi concluído|não foi autorizado|Tente/);
  }

  /** `name` (or test id) of the element focused inside the frame, through its shadow root. */
  async focusedInFrame(): Promise<string | null> {
    const frame = this.page.frames().find((f) => f.url().includes('/checkout/frame'));
    if (!frame) return null;
    return frame.evaluate(() => {
      if (!document.hasFocus()) return null;
      let el: Element | null = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      if (!el || el === document.body) return null;
      return el.getAttribute('name') ?? el.getAttribute('data-testid') ?? el.tagName.toLowerCase();
    });
  }
}
