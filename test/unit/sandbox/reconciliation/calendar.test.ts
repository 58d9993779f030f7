import { describe, expect, it } from 'vitest';
import {
  addDays,
  spDate,
  spIso,
  spStartOfDay,
  spStartOfNextDay,
} from '../../../../server/sandbox/reconciliation/calendar';

const zoneDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

describe('São Paulo calendar (cached offsets)', () => {
  it('gives the zone database day for instants across decades, DST changes included', () => {
    const wrong: string[] = [];
    for (let t = Date.UTC(1985, 0, 1); t < Date.UTC(2035, 0, 1); t += 23 * 3_600_000 + 7_777) {
      const d = new Date(t);
      if (spDate(d) !== zoneDay.format(d)) wrong.push(d.toISOString());
    }
    expect(wrong).toEqual([]);
  });

  it('switches offset at the exact instant of a DST change (4 Nov 2018, 00:00 → 01:00)', () => {
    expect(spIso(new Date('2018-11-04T02:59:59.999Z'))).toBe('2018-11-03T23:59:59.999-03:00');
    expect(spIso(new Date('2018-11-04T03:00:00.000Z'))).toBe('2018-11-04T01:00:00.000-02:00');
    expect(spDate(new Date('2018-11-04T02:59:59.999Z'))).toBe('2018-11-03');
    expect(spIso(new Date('2026-11-23T09:24:00Z'))).toBe('2026-11-23T06:24:00.000-03:00');
  });
});

describe('the ends of the YYYY-MM-DD range', () => {
  it('the day after 9999-12-31 starts at a valid instant', () => {
    expect(spStartOfDay('9999-12-31').toISOString()).toBe('9999-12-31T03:00:00.000Z');
    expect(spStartOfNextDay('9999-12-31').getTime()).toBe(Date.UTC(10_000, 0, 1, 3));
    expect(spStartOfNextDay('2026-02-28').toISOString()).toBe('2026-03-01T03:00:00.000Z');
  });

  it('addDays refuses a result with no YYYY-MM-DD form instead of a malformed one', () => {
    expect(addDays('9999-12-30', 1)).toBe('9999-12-31');
    expect(() => addDays('9999-12-31', 1)).toThrow(RangeError);
  });
});
