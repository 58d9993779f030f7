import { expect, type Frame, type Page } from '@playwright/test';
import { createRequire } from 'node:module';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Injects axe-core into one document (a page or a frame) and asserts it finds no violation of
 * WCAG 2.x A/AA. Frames are scanned on their own: cross-origin documents each get axe.
 */
export async function expectNoAxeViolations(target: Page | Frame): Promise<void> {
  await target.addScriptTag({ path: axePath });
  const violations = await target.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      iframes: false,
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
      },
    });
    return result.violations;
  });
  const summary = (violations as AxeViolation[]).map(
    (v) =>
      `${v.id} (${v.impact ?? '?'}): ${v.help}\n` +
      v.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('\n'),
  );
  expect(summary, `axe violations in ${target.url()}`).toEqual([]);
}
