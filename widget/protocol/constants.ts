/** 3DS challenge constants in one place (adyen-web style). */
import type { ChallengeWindowSize } from '../../contract/checkout';

/** The host gives up on an open challenge after 10 minutes (the BFF's challenge expiry). */
export const CHALLENGE_TIMEOUT_MS = 10 * 60 * 1000;

/** EMV 3DS challenge window sizes in CSS pixels; `05` is full screen. */
export const CHALLENGE_WINDOW_PIXELS: Record<
  Exclude<ChallengeWindowSize, '05'>,
  { width: number; height: number }
> = {
  '01': { width: 250, height: 400 },
  '02': { width: 390, height: 400 },
  '03': { width: 500, height: 600 },
  '04': { width: 600, height: 400 },
};

/** Room the dialog needs around the challenge iframe (border, close button, margins). */
const CHROME = { width: 32, height: 80 };

/**
 * The largest window that fits the viewport with its dialog chrome; full screen when even
 * 390×400 does not fit (a phone), since a cramped 250-pixel ACS page is worse than a full one.
 */
export function chooseChallengeWindowSize(
  viewportWidth: number,
  viewportHeight: number,
): ChallengeWindowSize {
  const fits = (s: Exclude<ChallengeWindowSize, '05'>): boolean =>
    CHALLENGE_WINDOW_PIXELS[s].width + CHROME.width <= viewportWidth &&
    CHALLENGE_WINDOW_PIXELS[s].height + CHROME.height <= viewportHeight;
  for (const size of ['03', '04', '02'] as const) if (fits(size)) return size;
  return '05';
}

/** The custom properties the host reads from itself and passes to the frame. */
export const THEME_PROPERTIES = [
  '--checkout-accent-color',
  '--checkout-accent-text-color',
  '--checkout-background-color',
  '--checkout-text-color',
  '--checkout-muted-color',
  '--checkout-border-color',
  '--checkout-error-color',
  '--checkout-focus-color',
  '--checkout-font-family',
  '--checkout-font-size',
  '--checkout-radius',
  '--checkout-spacing',
] as const;
export type ThemeProperty = (typeof THEME_PROPERTIES)[number];
export type Theme = Partial<Record<ThemeProperty, string>>;

/** `cs_<id>_secret_<random>` → `cs_<id>`; null when it is not a client secret. */
export function sessionIdFromSecret(secret: string): string | null {
  const m = /^(cs_[A-Za-z0-9-]+)_secret_[A-Za-z0-9_-]+$/.exec(secret);
  return m ? (m[1] ?? null) : null;
}

export const LOCALES = ['pt-BR', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** `en`, `en-US` → `en`; anything else → `pt-BR` (the default). */
export function resolveLocale(input: string | null | undefined): Locale {
  return input && /^en(-|$)/i.test(input) ? 'en' : 'pt-BR';
}
