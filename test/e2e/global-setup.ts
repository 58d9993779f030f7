import type { FullConfig } from '@playwright/test';
import { startTestStack } from '../support/stack';

/** Builds the widget and starts the three servers once for the whole run. */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const stack = await startTestStack();
  // Workers are started after this and inherit the environment.
  Object.assign(process.env, stack.env);
  return () => stack.close();
}
