import { z } from 'zod';

/**
 * A whole number of the environment, in digits only. An empty value (`VAR=` in an env file, a
 * compose `${UNSET}`) is the default, never 0 — which would switch a feature off (the
 * maintenance round, a rate limit) — and `0x1F90` or `1e3` are refused.
 */
export const wholeNumber = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim()) : v),
      z.string().regex(/^\d+$/, { error: 'must be a whole number (digits only)' }).optional(),
    )
    .transform((v) => (v === undefined ? fallback : Number(v)))
    .pipe(
      z
        .number()
        .int()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

/** A TCP port (1 to 65535), by the `wholeNumber` rule. */
export const port = (fallback: number) => wholeNumber(fallback, 1, 65535);

/** Node's timers fire at once (after 1 ms) for a delay of 2^31 ms or more. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A time in ms by the `wholeNumber` rule, at most Node's timer limit. */
export const milliseconds = (fallback: number, min: number, max = MAX_TIMER_MS) =>
  wholeNumber(fallback, min, max);

/** One port variable read alone: its value, or an error naming the variable and the rule. */
export function readPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const parsed = port(fallback).safeParse(env[name]);
  if (!parsed.success) {
    throw new Error(`${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  return parsed.data;
}
