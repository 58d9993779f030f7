/**
 * Calendar days in America/Sao_Paulo (DESIGN §5: date filters are calendar days there). Brazil
 * has kept UTC−3 since 2019, but the zone database is asked anyway so any instant converts.
 */
const ZONE = 'America/Sao_Paulo';

const format = new Intl.DateTimeFormat('en-CA', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** São Paulo's offset from UTC at an instant, in ms (e.g. −3 h). */
function offsetAt(instant: number): number {
  const p: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The first instant of São Paulo calendar day `date` (YYYY-MM-DD) plus `days` days. */
export function spStartOfDay(date: string, days = 0): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d + days);
  return new Date(utcMidnight - offsetAt(utcMidnight + 12 * 3_600_000));
}

/** The São Paulo calendar day (YYYY-MM-DD) of an instant. */
export function spDate(instant: Date): string {
  const shifted = new Date(instant.getTime() + offsetAt(instant.getTime()));
  return shifted.toISOString().slice(0, 10);
}
