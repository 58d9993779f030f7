/**
 * Calendar days in America/Sao_Paulo (DESIGN §5: date filters are calendar days there).
 * Brazil has had no daylight saving since 2019, but the zone database is consulted anyway so
 * older instants convert correctly.
 */
const ZONE = 'America/Sao_Paulo';

const dateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function parts(instant: Date): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of dateFormat.formatToParts(instant)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return out;
}

/** The São Paulo calendar day (YYYY-MM-DD) of an instant. */
export function spDate(instant: Date): string {
  const off = cachedOffset(instant);
  if (off !== null) return new Date(instant.getTime() + off).toISOString().slice(0, 10);
  const p = parts(instant);
  return `${String(p.year).padStart(4, '0')}-${pad(p.month!)}-${pad(p.day!)}`;
}

/** Offset of São Paulo from UTC at an instant, in ms (e.g. -3 h). */
function offsetAt(instant: Date): number {
  return cachedOffset(instant) ?? zoneOffset(instant);
}

function zoneOffset(instant: Date): number {
  const p = parts(instant);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}

const HOUR = 3_600_000;
/** Offset by UTC hour, for hours that start and end on the same offset (Intl is slow). */
const offsetByHour = new Map<number, number | null>();

function cachedOffset(instant: Date): number | null {
  const t = instant.getTime();
  if (!Number.isFinite(t)) return null;
  const hour = Math.floor(t / HOUR);
  let off = offsetByHour.get(hour);
  if (off === undefined) {
    const start = zoneOffset(new Date(hour * HOUR));
    const end = zoneOffset(new Date(hour * HOUR + HOUR - 1000));
    // An hour with a change inside (or a sub-second offset) is computed each time.
    off = start === end && start % 1000 === 0 ? start : null;
    if (offsetByHour.size >= 10_000) offsetByHour.clear();
    offsetByHour.set(hour, off);
  }
  return off;
}

/** The first instant of a São Paulo calendar day (YYYY-MM-DD). */
export function spStartOfDay(date: string): Date {
  return startOfDay(date, 0);
}

/**
 * The first instant of the São Paulo day after `date`: the exclusive end of that day. Computed
 * on numbers, so it exists for 9999-12-31 too (its next day has no YYYY-MM-DD form).
 */
export function spStartOfNextDay(date: string): Date {
  return startOfDay(date, 1);
}

function startOfDay(date: string, plusDays: number): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d + plusDays);
  const guess = utcMidnight - offsetAt(new Date(utcMidnight + 12 * 3_600_000));
  return new Date(guess);
}

/** The last day a YYYY-MM-DD can name. */
export const LAST_DATE = '9999-12-31';

/**
 * A calendar date plus `days` (may be negative). A result outside years 0000–9999 has no
 * YYYY-MM-DD form: that throws a RangeError rather than return a malformed date (`+010000-01`).
 */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const at = new Date(Date.UTC(y, m - 1, d + days));
  const year = at.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) {
    throw new RangeError(`date out of range: ${date} plus ${days} days`);
  }
  return at.toISOString().slice(0, 10);
}

/** Whole days from `a` to `b` (both YYYY-MM-DD). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** An instant as ISO 8601 with the São Paulo offset, e.g. `2026-11-23T06:24:00.000-03:00`. */
export function spIso(instant: Date): string {
  const off = offsetAt(instant);
  const local = new Date(instant.getTime() + off).toISOString().slice(0, 23);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off) / 60_000;
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Saturday or Sunday. */
export function isWeekend(date: string): boolean {
  const dow = new Date(`${date}T12:00:00Z`).getUTCDay();
  return dow === 0 || dow === 6;
}

/** `date` when it is a weekday, else the Monday after (holidays are not modelled). */
export function businessDayOnOrAfter(date: string): string {
  return isWeekend(date) ? nextBusinessDay(date) : date;
}

/** The next weekday strictly after `date` (holidays are not modelled). */
export function nextBusinessDay(date: string): string {
  let d = addDays(date, 1);
  while (isWeekend(d)) d = addDays(d, 1);
  return d;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
