import { defineConfig, devices } from '@playwright/test';

// Playwright's own Chromium when installed, else the system's (no browser download needed).
// The helper is plain JS shared with CI, so it is imported by a path the type checker skips.
const findBrowserModule: string = './scripts/find-browser.mjs';
const { findBrowser } = (await import(findBrowserModule)) as {
  findBrowser(): Promise<string | null>;
};
const executablePath = (await findBrowser()) ?? undefined;

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // A loaded two-core machine (CI) runs a payment spec in 10–35 s: budgets, not timings.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['github']] : 'list',
  use: {
    ...devices['Desktop Chrome'],
    headless: true,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    trace: 'retain-on-failure',
    launchOptions: {
      ...(executablePath ? { executablePath } : {}),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    },
  },
});
