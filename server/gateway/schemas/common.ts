import { z } from 'zod';

/** A string of at most `max` characters. */
export const str = (max: number) =>
  z.string().max(max, { error: `must be at most ${max} characters` });

/** A non-empty string of at most `max` characters. */
export const reqStr = (max: number) =>
  z
    .string()
    .min(1, { error: 'is required' })
    .max(max, { error: `must be at most ${max} characters` });

/** An integer of at most `digits` decimal digits (the spec's "size" for integers). */
export const intDigits = (digits: number) =>
  z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .nonnegative({ error: 'must not be negative' })
    .max(10 ** digits - 1, { error: `must have at most ${digits} digits` });

/**
 * A decimal with at most `intPart` integer digits and `scale` decimals, e.g. the spec's "10,4"
 * (which we read as precision 10, scale 4: six integer digits) or the plan amount "12 integer
 * digits and 6 decimals" (pass precision = 18).
 */
export const decimal = (precision: number, scale: number) =>
  z
    .number({ error: 'must be a number' })
    .refine((v) => Number.isFinite(v), { error: 'must be a finite number' })
    .refine((v) => decimalPlaces(v) <= scale, {
      error: `must have at most ${scale} decimal places`,
    })
    // Compared as a number: 1e21 and beyond print in exponent form ("1e+21", 5 characters).
    .refine((v) => Math.abs(v) < 10 ** (precision - scale), {
      error: `must have at most ${precision - scale} integer digits`,
    });

/** The spec's decimals arrive as numbers or as numeric strings; accept both on input. */
export const decimalLoose = (precision: number, scale: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v),
    decimal(precision, scale),
  );

export function decimalPlaces(v: number): number {
  if (Number.isInteger(v)) return 0;
  const s = v.toString();
  const m = /\.(\d+)(?:e-(\d+))?$/.exec(s);
  if (m) return m[1]!.length + Number(m[2] ?? 0);
  const e = /e-(\d+)$/.exec(s);
  return e ? Number(e[1]) : 0;
}

export const guid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    error: 'must be a GUID (8-4-4-4-12 hex digits)',
  });

/** ISO 8601 datetime with an offset or Z. */
export const isoDateTime = z
  .string()
  .datetime({ offset: true, error: 'must be an ISO 8601 datetime' });

/** A calendar date YYYY-MM-DD that exists. */
export const isoDate = z.string().refine(isCalendarDate, { error: 'must be a date YYYY-MM-DD' });

export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/** A query-string integer: digits only, then range-checked. */
export const queryInt = (opts: { min?: number; max?: number } = {}) =>
  z
    .string()
    .regex(/^\d{1,15}$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(opts.min ?? 0, { error: `must be at least ${opts.min ?? 0}` })
        .max(opts.max ?? Number.MAX_SAFE_INTEGER, { error: `must be at most ${opts.max}` }),
    );

/** The spec's error body. */
export const ErrorItemSchema = z.object({ tag: z.string(), description: z.string() });
export const ErrorBodySchema = z.array(ErrorItemSchema);
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * A datetime in an answer: ISO 8601 with an offset, or without one (local time), which
 * gateways built on .NET commonly send. Used for response fields only; requests use
 * `isoDateTime`.
 */
export const respDateTime = z
  .string()
  .datetime({ offset: true, local: true, error: 'must be an ISO 8601 datetime' });

/** A field the spec types "datetime" but formats "YYYY-MM-DD": either form is accepted. */
export const dateOrDateTime = z.union([isoDate, respDateTime], {
  error: 'must be a date YYYY-MM-DD or an ISO 8601 datetime',
});

/** A number that may arrive as a numeric string (answers of the Integration API). */
export const looseNumber = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v),
  z.number({ error: 'must be a number' }),
);

/** An integer that may arrive as a string of digits. */
export const looseInt = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
  z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }),
);

/** The spec's `long` in a query string: 1 to 18 digits, kept as a string (no precision loss). */
export const queryLong = z
  .string({ error: 'is required' })
  .regex(/^\d{1,18}$/, { error: 'must be a whole number of at most 18 digits' });

/** A date YYYY-MM-DD in a query string. */
export const queryDate = z
  .string({ error: 'is required' })
  .max(10, { error: 'must be a date YYYY-MM-DD', abort: true })
  .refine(isCalendarDate, { error: 'must be a date YYYY-MM-DD' });

/** The search envelope of plans, subscriptions and billings. */
export const searchEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  });
