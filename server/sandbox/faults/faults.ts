import type { MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { errorResponse } from '../../lib/http';
import type { SandboxContext } from '../context';
import { UNKNOWN_ERROR_DESCRIPTION } from '../payments/test-cards';

/**
 * `POST /__sandbox/faults`: the next `count` API calls matching `method` (any when left out)
 * and `path` (exact, or a prefix when it ends with `*`; any when left out) are delayed by
 * `latencyMs`, then answered with `status` (and the internal error array), or dropped (the
 * connection closed without an answer). A fault with only latency lets the call through. With
 * `after`, the call is processed first and its answer then replaced by `status`: a gateway
 * that did the work (charged) and failed to say so.
 */
export const FaultSchema = z
  .object({
    method: z
      .string()
      .regex(/^[A-Za-z]{3,7}$/, { error: 'must be an HTTP method' })
      .transform((m) => m.toUpperCase())
      .optional(),
    path: z
      .string()
      .regex(/^\/[^\s]*$/, { error: 'must start with /' })
      .max(300)
      .optional(),
    count: z.number().int().min(1).max(10_000),
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    status: z.number().int().min(400).max(599).optional(),
    drop: z.boolean().optional(),
    after: z.boolean().optional(),
  })
  .strict()
  .refine((f) => f.latencyMs !== undefined || f.status !== undefined || f.drop === true, {
    error: 'give at least one of latencyMs, status, drop',
  })
  .refine((f) => !(f.drop === true && f.status !== undefined), {
    error: 'drop and status exclude each other',
  })
  .refine((f) => f.after !== true || f.status !== undefined, {
    error: 'after replaces the answer: give status with it',
  });
export type FaultInput = z.infer<typeof FaultSchema>;

export interface Fault extends FaultInput {
  id: number;
  remaining: number;
}

export class FaultQueue {
  private faults: Fault[] = [];
  private nextId = 1;

  add(input: FaultInput): Fault {
    const fault = { ...input, id: this.nextId++, remaining: input.count };
    this.faults.push(fault);
    return { ...fault };
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }

  /** Takes one use of the oldest fault matching the call, or null. */
  take(method: string, path: string): Fault | null {
    const i = this.faults.findIndex((f) => matches(f, method, path));
    if (i < 0) return null;
    const fault = this.faults[i]!;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(i, 1);
    return { ...fault };
  }

  get size(): number {
    return this.faults.length;
  }
}

export function matches(f: FaultInput, method: string, path: string): boolean {
  if (f.method !== undefined && f.method !== method.toUpperCase()) return false;
  if (f.path === undefined) return true;
  return f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : path === f.path;
}

const queues = new WeakMap<SandboxContext, FaultQueue>();

/** The sandbox's fault queue (emptied by reset). */
export function faultQueue(ctx: SandboxContext): FaultQueue {
  let q = queues.get(ctx);
  if (!q) {
    const created = new FaultQueue();
    ctx.onReset(() => created.clear());
    queues.set(ctx, created);
    q = created;
  }
  return q;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Middleware of the two API families and their token operations (credentials refused for a
 * while): applies the next matching fault, if any.
 */
export function faultMiddleware(ctx: SandboxContext): MiddlewareHandler {
  const queue = faultQueue(ctx);
  return async (c, next) => {
    if (queue.size === 0) return next();
    const fault = queue.take(c.req.method, c.req.path);
    if (!fault) return next();
    if (fault.latencyMs) await sleep(fault.latencyMs);
    if (fault.drop) {
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      incoming?.socket.destroy();
      return new Response(null, { status: 502 });
    }
    if (fault.status !== undefined && fault.after) {
      await next();
      // Processed: its answer is replaced (headers and all) by the error.
      c.res = undefined;
      c.res = errorResponse(c, fault.status as 500, '', UNKNOWN_ERROR_DESCRIPTION);
      return;
    }
    if (fault.status !== undefined) {
      return errorResponse(c, fault.status as 500, '', UNKNOWN_ERROR_DESCRIPTION);
    }
    return next();
  };
}
