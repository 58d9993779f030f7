/**
 * The session's end as the open form shows it: a notice two minutes before, and a quiet look
 * at the session once it should have ended. The BFF's clock decides, not the device's.
 */
import type { Messages } from '../i18n/messages';
import { plural } from '../i18n/messages';

/** The expiry notice shows this long before the session ends. */
const EXPIRY_NOTICE_MS = 2 * 60_000;

export class ExpiryWatch {
  /** "This session expires in N minutes", or empty. */
  text = '';
  #timers: ReturnType<typeof setTimeout>[] = [];

  /**
   * `host`: its messages, and drawn again when the notice changes; `now`: the BFF's time (ms);
   * `check`: the session should have ended: read it (one still open schedules the next look).
   */
  constructor(
    private readonly host: { readonly m: Messages; requestUpdate(): void },
    private readonly now: () => number,
    private readonly check: () => void,
  ) {}

  schedule(expiresAt: string): void {
    this.clear();
    const at = Date.parse(expiresAt);
    const left = at - this.now();
    /** Says the minutes left, and again each time their count drops. */
    const tell = (): void => {
      const ms = at - this.now();
      this.text = plural(this.host.m.expiresSoon, Math.max(1, Math.ceil(ms / 60_000)));
      this.host.requestUpdate();
      if (ms > 60_000) this.#timers.push(setTimeout(tell, ((ms - 1) % 60_000) + 1));
    };
    this.#timers = [
      setTimeout(tell, Math.max(0, left - EXPIRY_NOTICE_MS)),
      setTimeout(this.check, Math.max(1000, left + 1000)),
    ];
  }

  clear(): void {
    this.#timers.forEach(clearTimeout);
    this.#timers = [];
    this.text = '';
  }
}
