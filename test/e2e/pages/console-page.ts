import { expect, type Locator, type Page } from '@playwright/test';

/** The merchant console: sessions, attempts and outcomes as the BFF reports them. */
export class ConsolePage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  async goto(): Promise<void> {
    await this.page.goto(this.baseUrl + '/console');
    await expect(
      this.page.getByRole('heading', { level: 1, name: 'Console do lojista' }),
    ).toBeVisible();
  }

  session(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
  }

  status(sessionId: string): Locator {
    return this.session(sessionId).getByTestId('session-status');
  }

  attempts(sessionId: string): Locator {
    return this.session(sessionId).getByTestId('attempt');
  }

  /** The "Notificações do gateway" section, kept current by polling (no reload). */
  get notifications(): Locator {
    return this.page.getByTestId('console-notificacoes');
  }

  /** The status region that announces new notifications. */
  get notificationsStatus(): Locator {
    return this.page.getByTestId('notifications-status');
  }

  /** The notification rows with this new value (e.g. `Authorized`) matched to the session. */
  notification(sessionId: string, newValue: string): Locator {
    return this.notifications
      .locator(`[data-testid="notification-row"][data-new-value="${newValue}"]`)
      .filter({ has: this.page.locator('[data-field="session"]', { hasText: sessionId }) });
  }
}
