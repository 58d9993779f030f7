import { expect, type Frame, type Locator, type Page } from '@playwright/test';

/**
 * The 3DS challenge: a `<dialog>` in the host's shadow root whose iframe opens the BFF's
 * launcher page, which posts to the sandbox's ACS page (OTP `1234`).
 */
export class ChallengeDialog {
  readonly dialog: Locator;
  readonly closeButton: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.locator('card-checkout [part="challenge-dialog"]');
    this.closeButton = page.locator('card-checkout [part="challenge-close"]');
  }

  async expectOpen(): Promise<void> {
    await expect(this.dialog).toBeVisible();
  }

  async expectClosed(): Promise<void> {
    await expect(this.dialog).toBeHidden();
  }

  /** The ACS document, wherever the launcher nested it. */
  async acsFrame(): Promise<Frame> {
    let found: Frame | undefined;
    await expect
      .poll(
        async () => {
          for (const f of this.page.frames()) {
            if (!/\/acs\/challenge/.test(f.url())) continue;
            if (
              await f
                .locator('#otp')
                .count()
                .catch(() => 0)
            ) {
              found = f;
              return true;
            }
          }
          return false;
        },
        { message: 'waiting for the ACS challenge page' },
      )
      .toBe(true);
    return found!;
  }

  async submitOtp(otp: string): Promise<void> {
    const acs = await this.acsFrame();
    await acs.getByLabel(/Código de verificação/).fill(otp);
    await acs.getByRole('button', { name: /Confirmar/ }).click();
  }

  async cancelAtBank(): Promise<void> {
    const acs = await this.acsFrame();
    await acs.getByRole('button', { name: /Cancelar/ }).click();
  }

  /** How many iframes the host holds: the card form's, plus the bank's while a challenge is open. */
  async hostFrames(): Promise<number> {
    return this.page.evaluate(
      () =>
        document.querySelector('card-checkout')?.shadowRoot?.querySelectorAll('iframe').length ?? 0,
    );
  }

  /** The `part` of what has the focus in the host's shadow root (the dialog lives there). */
  async focusedPart(): Promise<string | null> {
    return this.page.evaluate(
      () =>
        document.querySelector('card-checkout')?.shadowRoot?.activeElement?.getAttribute('part') ??
        null,
    );
  }

  /** True when the bank's code field has the keyboard focus. */
  async otpFocused(): Promise<boolean> {
    const acs = await this.acsFrame();
    return acs
      .locator('#otp')
      .evaluate((el) => el === document.activeElement && document.hasFocus());
  }

  async close(): Promise<void> {
    await this.closeButton.click();
  }
}
