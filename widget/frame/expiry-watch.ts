/**
 * The session's end as the open form shows it: a notice two minutes before, and a quiet look
 * at the session once it should have ended. The BFF's clock decides, not the device's.
 */
import type { Messages } from '../i18n/messages';
import { plural } from '../i18n/messages';

/** The expiry notice shows this long before the session ends. */
const EXPIRY_NOTICE_MS = 2 * 60_000;

export interface ExpiryWatchOptions {
  /** The BFF's time (ms). */
  now(): number;
  messages(): Messages;
  /** The notice changed: draw again. */
  changed(): void;
  /** The session should have ended: read it (one still open schedules the next look). */
  check(): void;
}

export class ExpiryWatch {
  /** "This session expires in N minutes", or empty. */
  text = '';
  #timers: ReturnType<typeof setTimeout>[] = [];

  constructor(private readonly opts: ExpiryWatchOptions) {}

  schedule(expiresAt: string): void {
    this.clear();
    const { now, messages, changed, check } = this.opts;
    const at = Date.parse(expiresAt);
    const left = at - now();
    this.#timers.push(
      setTimeout(
        () => {
          this.text = plural(messages().expiresSoon, Math.max(1, Math.ceil((at - now()) / 60_000)));
          changed();
        },
        Math.max(0, left - EXPIRY_NOTICE_MS),
      ),
      setTimeout(check, Math.max(1000, left + 1000)),
    );
  }

  clear(): void {
    this.#timers.forEach(clearTimeout);
    this.#timers = [];
    this.text = '';
  }
}
