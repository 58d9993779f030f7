import type { Context } from 'hono';
import { z } from 'zod';
import { isCalendarDate } from '../../gateway/schemas/common';
import { errorResponse } from '../../lib/http';
import type { SandboxClient } from '../clients';
import { daysBetween } from './calendar';

/**
 * Query-string pieces shared by the Integration API searches (reconciliation and bank slips).
 * The spec leaves the maximum date range "not shown"; we allow up to 366 days so one search
 * cannot scan the whole ledger.
 */
export const MAX_RANGE_DAYS = 366;

/** The spec's `long`: 1 to 18 digits. */
export const accountNumberParam = z
  .string({ error: 'is required' })
  .regex(/^\d{1,18}$/, { error: 'must be a whole number of at most 18 digits' });

export const dateParam = z
  .string({ error: 'is required' })
  // Aborts: a long value is one error, not this and the calendar check's.
  .max(10, { error: 'must be a date YYYY-MM-DD', abort: true })
  .refine(isCalendarDate, { error: 'must be a date YYYY-MM-DD' });

/** `accountNumber`, `startDate`, `endDate`: inclusive, ordered, at most MAX_RANGE_DAYS long. */
export function dateRangeQuery<E extends z.ZodRawShape>(extra: E) {
  return z
    .object({
      accountNumber: accountNumberParam,
      startDate: dateParam,
      endDate: dateParam,
      ...extra,
    })
    .superRefine((raw, ctx) => {
      const q = raw as { startDate: string; endDate: string };
      const span = daysBetween(q.startDate, q.endDate);
      if (span < 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['endDate'],
          message: 'must not be before startDate',
        });
      } else if (span + 1 > MAX_RANGE_DAYS) {
        ctx.addIssue({
          code: 'custom',
          path: ['endDate'],
          message: `the period may span at most ${MAX_RANGE_DAYS} days`,
        });
      }
    });
}

/**
 * Results are limited to the token's own account: another account's number is refused with
 * 403 rather than answered with an empty list, so a misconfigured caller notices.
 */
export function forbidOtherAccount(
  c: Context,
  client: SandboxClient,
  accountNumber: string,
): Response | null {
  if (BigInt(accountNumber) === BigInt(client.accountNumber)) return null;
  return errorResponse(
    c,
    403,
    'accountNumber',
    'accountNumber: not an account of the authenticated client',
  );
}
