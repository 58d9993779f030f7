import { Hono } from 'hono';
import { z } from 'zod';
import { MS } from '../../lib/clock';
import { parseJsonBody } from '../../lib/http';
import type { SandboxContext } from '../context';
import { wipeData } from '../db';
import { saveClockOffset } from '../clock/store';

const AdvanceSchema = z
  .object({
    days: z.number().int().min(0).max(3660).optional(),
    hours: z.number().int().min(0).max(87_840).optional(),
    minutes: z.number().int().min(0).max(5_270_400).optional(),
    seconds: z.number().int().min(0).max(316_224_000).optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    error: 'give at least one of days, hours, minutes, seconds',
  });

/**
 * `/__sandbox` clock and reset. Other domains mount their own control routes beside these
 * (cancellation requests, faults, bank slips, webhook deliveries) in `app.ts`.
 */
export function clockControlRoutes(ctx: SandboxContext, runResetHooks: () => Promise<void>): Hono {
  return (
    new Hono()
      .get('/clock', (c) =>
        c.json({ now: ctx.clock.now().toISOString(), offsetMs: ctx.clock.offset }),
      )
      // Back to real time, data kept: what was scheduled stays scheduled, at its business time.
      .post('/clock/reset', async (c) => {
        await ctx.scheduler.exclusive(async () => {
          ctx.clock.reset(0);
          await saveClockOffset(ctx.db, 0);
        });
        return c.json({ now: ctx.clock.now().toISOString(), offsetMs: 0 });
      })
      .post('/clock/advance', async (c) => {
        const body = await parseJsonBody(c, AdvanceSchema);
        if (!body.ok) return body.response;
        const { days = 0, hours = 0, minutes = 0, seconds = 0 } = body.data;
        const ms = days * MS.day + hours * MS.hour + minutes * MS.minute + seconds * MS.second;
        const now = await ctx.scheduler.advance(ms);
        return c.json({ now: now.toISOString() });
      })
      .post('/reset', async (c) => {
        await ctx.scheduler.exclusive(async () => {
          await ctx.scheduler.settle(); // no delivery records an outcome into wiped tables
          await wipeData(ctx.db);
          ctx.clock.reset(0);
          await saveClockOffset(ctx.db, 0);
          await runResetHooks();
        });
        return c.json({ reset: true, now: ctx.clock.now().toISOString() });
      })
  );
}
