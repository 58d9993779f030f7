import type { Page } from '@playwright/test';
import { join } from 'node:path';

/** Where the e2e run leaves pictures of what a shopper sees (linked from docs/demo.md). */
export const SCREENSHOTS_DIR = join('test-results', 'screenshots');

/** The whole page, or (for the modal challenge dialog) what the viewport shows. */
export async function saveScreenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage });
}
