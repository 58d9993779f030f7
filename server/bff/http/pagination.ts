import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { ListPage } from '../../../contract/events';
import { queryInt } from '../../gateway/schemas/common';

/**
 * Cursor pagination of every `/v1` list (Stripe's): newest first, `limit` rows, then
 * `starting_after=<id>` for the page after a row or `ending_before=<id>` for the page before
 * it. The order is `(created_at, id)` descending, so rows arriving while a merchant pages
 * appear before the first page and never shift the pages already read.
 */
export const PAGE_QUERY = {
  limit: queryInt({ min: 1, max: 100 }).optional(),
  starting_after: z.string().min(1).max(64).optional(),
  ending_before: z.string().min(1).max(64).optional(),
};

export const DEFAULT_PAGE_LIMIT = 10;

export interface PageRequest {
  limit?: number | undefined;
  starting_after?: string | undefined;
  ending_before?: string | undefined;
}

/** A cursor as the list's order sees it: the row's `created_at` and `id`. */
export interface Cursor {
  createdAt: string;
  id: string;
}

type Keyed = { created_at: string; id: string };

/**
 * Reads one page of `base` (a select over a table with `created_at` and `id`), the cursor
 * being the row `cursorOf` finds (undefined: the cursor names no row, answered by the caller
 * as a 400 naming the parameter).
 */
export async function readPage<DB, TB extends keyof DB, O extends Keyed>(
  base: SelectQueryBuilder<DB, TB, O>,
  req: PageRequest,
  cursorOf: (id: string) => Promise<Cursor | undefined>,
): Promise<ListPage<O> | { badCursor: 'starting_after' | 'ending_before' }> {
  const limit = req.limit ?? DEFAULT_PAGE_LIMIT;
  const which =
    req.starting_after !== undefined
      ? 'starting_after'
      : req.ending_before !== undefined
        ? 'ending_before'
        : null;
  // The dynamic column names below are the two every paged table has.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let q = base as unknown as SelectQueryBuilder<any, any, O>;
  let backwards = false;
  if (which) {
    const cursor = await cursorOf(req[which]!);
    if (!cursor) return { badCursor: which };
    const op = which === 'starting_after' ? '<' : '>';
    backwards = which === 'ending_before';
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    q = q.where((eb: ExpressionBuilder<any, any>) =>
      eb.or([
        eb('created_at', op, cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', op, cursor.id)]),
      ]),
    );
  }
  const dir = backwards ? 'asc' : 'desc';
  const rows = await q
    .orderBy('created_at', dir)
    .orderBy('id', dir)
    .limit(limit + 1)
    .execute();
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page, hasMore };
}

/** The `PAGE_QUERY` rule both cursors break together. */
export function bothCursors(q: PageRequest): boolean {
  return q.starting_after !== undefined && q.ending_before !== undefined;
}
