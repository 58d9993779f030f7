import { test as base } from '@playwright/test';
import { stackEnv, type E2eStackEnv } from '../support/stack';
import { StorefrontPage } from './pages/storefront-page';

/** Specs import `test` from here: the running stack's addresses and the page objects. */
export const test = base.extend<{ stack: E2eStackEnv; storefront: StorefrontPage }>({
  // eslint-disable-next-line no-empty-pattern
  stack: async ({}, use) => {
    await use(stackEnv());
  },
  storefront: async ({ page, stack }, use) => {
    await use(new StorefrontPage(page, stack.E2E_DEMO_URL));
  },
});

export { expect } from '@playwright/test';
