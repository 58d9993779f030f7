import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/** The spec's error body: an array of `{tag, description}`. */
export interface ErrorItem {
  tag: string;
  description: string;
}

export function errorItems(tag: string, description: string): ErrorItem[] {
  return [{ tag, description }];
}

/** Answers with the spec's error array. */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  tag: string,
  description: string,
): Response {
  return c.json(errorItems(tag, description), status);
}

/** Turns zod issues into error items whose tag is the dotted field path. */
export function zodErrorItems(error: z.ZodError): ErrorItem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const tag = path || 'body';
    let description = issue.message;
    if (issue.code === 'unrecognized_keys') {
      description = `unknown field(s): ${issue.keys.join(', ')}`;
    }
    return { tag, description: `${tag}: ${description}` };
  });
}

export type ParseResult<T> = { ok: true; data: T } | { ok: false; response: Response };

/** Reads a JSON body and validates it; a bad body becomes a 400 naming the field. */
export async function parseJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<ParseResult<z.infer<S>>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
    return {
      ok: false,
      response: errorResponse(
        c,
        415,
        'content-type',
        'content-type: the body must be application/json',
      ),
    };
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return { ok: false, response: errorResponse(c, 400, 'body', 'body: not valid JSON') };
  }
  return validate(c, schema, raw);
}

/** Validates the query string (first value of each key). */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S): ParseResult<z.infer<S>> {
  return validate(c, schema, c.req.query());
}

/** A step of the path to a value: its key under its parent (the root has none). */
interface PathStep {
  key: string;
  parent: PathStep | null;
}

function dottedPath(step: PathStep | null): string {
  const keys: string[] = [];
  for (let at = step; at; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/**
 * The dotted path of the first string (value or key) in `value` holding a NUL character, `''`
 * for the value itself, or null when there is none. PostgreSQL refuses NUL in text: input
 * carrying one is refused at the door, naming the field, rather than failing in a query.
 * The walk keeps its own stack: a body nested thousands of levels deep must not exhaust the call
 * stack (that would answer 500 instead of the validation's 400).
 */
export function nulFieldOf(value: unknown): string | null {
  const stack: { value: unknown; at: PathStep | null }[] = [{ value, at: null }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.at?.key.includes('\0')) return dottedPath(next.at);
    if (typeof next.value === 'string') {
      if (next.value.includes('\0')) return dottedPath(next.at);
      continue;
    }
    if (next.value === null || typeof next.value !== 'object') continue;
    const entries = Object.entries(next.value);
    // Pushed last to first so that the first key is walked first (depth first, in key order).
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({ value: child, at: { key, parent: next.at } });
    }
  }
  return null;
}

/** The 400 for a NUL character in `field` (see `nulFieldOf`). */
export function nulRefused(c: Context, field: string): Response {
  const tag = field || 'body';
  return errorResponse(c, 400, tag, `${tag}: must not contain a NUL character`);
}

export function validate<S extends z.ZodType>(
  c: Context,
  schema: S,
  raw: unknown,
): ParseResult<z.infer<S>> {
  const nul = nulFieldOf(raw);
  if (nul !== null) return { ok: false, response: nulRefused(c, nul) };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, response: c.json(zodErrorItems(parsed.error), 400) };
  return { ok: true, data: parsed.data };
}
