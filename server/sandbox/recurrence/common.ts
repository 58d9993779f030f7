import { sql, type Expression, type SqlBool } from 'kysely';

/** What a recurrence operation answers when it refuses: the route maps it to the error array. */
export interface Refusal {
  ok: false;
  status: 400 | 403 | 404;
  tag: string;
  description: string;
}

export type Result<T> = { ok: true; value: T } | Refusal;

export function refuse(status: Refusal['status'], tag: string, description: string): Refusal {
  return { ok: false, status, tag, description: `${tag}: ${description}` };
}

/** The spec's search envelope for plans, subscriptions and billings. */
export interface SearchEnvelope<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
}

export const MS_PER_DAY = 86_400_000;

export function addDaysIso(iso: string, days: number): string {
  return new Date(Date.parse(iso) + days * MS_PER_DAY).toISOString();
}

/**
 * A case-insensitive "contains" filter that behaves the same in SQLite and PostgreSQL:
 * `lower(column) like '%needle%'` with the LIKE wildcards of the needle escaped.
 */
export function containsInsensitive(column: string, needle: string): Expression<SqlBool> {
  const escaped = needle.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`);
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}
