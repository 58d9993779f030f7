import { createQueryId, type Compilable, type CompiledQuery, type Kysely } from 'kysely';

/** Where a named parameter goes in the statement while it is being compiled. */
class Slot {
  constructor(readonly name: string) {}
}

interface Template {
  sql: string;
  query: CompiledQuery['query'];
  /** Per position: the parameter's name, or a value written into the builder itself. */
  binds: (string | { value: unknown })[];
}

/**
 * The statement texts of every precompiled query, per dialect adapter: PostgreSQL prepares
 * these by name once per connection (`openDb`), instead of parsing and planning each call.
 */
export const precompiledTexts = new Map<string, string>();

/**
 * A query Kysely builds and compiles once per dialect; every later call only binds its
 * parameters. For hot paths, where building and compiling a query with Kysely costs more than
 * SQLite takes to run it (about 20 µs a statement).
 *
 * `build` receives a stand-in for each named parameter (`p.id`) and must use them as values
 * only: it runs once, so it must not branch on them, spread them or make lists of varying
 * length from them. Constants written in the builder stay constants. Run the result with
 * `db.executeQuery(...)`: it joins the transaction `db` is in, like any query. An undefined
 * parameter binds NULL.
 */
export function precompiled<DB, P extends object, O>(
  build: (db: Kysely<DB>, p: Readonly<P>) => Compilable<O>,
): (db: Kysely<DB>, params: P) => CompiledQuery<O> {
  const byAdapter = new Map<unknown, Template>();
  const stand = new Proxy({} as P, {
    get: (_, name) => new Slot(String(name)),
  });
  return (db, params) => {
    const adapter = db.getExecutor().adapter.constructor;
    let t = byAdapter.get(adapter);
    if (!t) {
      const compiled = build(db, stand).compile();
      t = {
        sql: compiled.sql,
        query: compiled.query,
        binds: compiled.parameters.map((v) => (v instanceof Slot ? v.name : { value: v })),
      };
      byAdapter.set(adapter, t);
      if (!precompiledTexts.has(t.sql)) {
        precompiledTexts.set(t.sql, `cc_${precompiledTexts.size.toString(36)}`);
      }
    }
    const parameters = t.binds.map((b) =>
      typeof b === 'string' ? ((params as Record<string, unknown>)[b] ?? null) : b.value,
    );
    return { sql: t.sql, query: t.query, queryId: createQueryId(), parameters };
  };
}

/** The rows a precompiled query answers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function rowsOf<O>(db: Kysely<any>, q: CompiledQuery<O>): Promise<O[]> {
  return (await db.executeQuery(q)).rows;
}

/** How many rows a precompiled insert, update or delete changed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function changesOf(db: Kysely<any>, q: CompiledQuery): Promise<number> {
  return Number((await db.executeQuery(q)).numAffectedRows ?? 0);
}

/**
 * The values of an insert of every column of a row, for a `precompiled` builder: `columns`
 * names them all (the type checker holds it to the row's keys, so a new column cannot be
 * forgotten).
 */
export function everyColumn<R extends object>(
  p: Readonly<R>,
  columns: NoInfer<{ readonly [K in keyof R]-?: true }>,
): R {
  return Object.fromEntries(Object.keys(columns).map((k) => [k, p[k as keyof R]])) as R;
}

/**
 * The names of every column of a row, for `select` and `returning` lists: a statement that
 * names its columns keeps its result type when a migration adds one, which PostgreSQL requires
 * of a statement prepared by name (`select *` would fail there until re-prepared).
 */
export function columnList<R extends object>(columns: { readonly [K in keyof R]-?: true }) {
  return Object.keys(columns) as (keyof R & string)[];
}

/** The shape of a partial row for `perShape`: its defined keys, sorted, comma-separated. */
export function shapeOf(values: object): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort()
    .join(',');
}

/** The `set` values of a shape's columns, from a builder's stand-ins. */
export function columnsOf<P extends object>(shape: string, p: Readonly<P>): Partial<P> {
  const keys = shape ? (shape.split(',') as (keyof P)[]) : [];
  return Object.fromEntries(keys.map((k) => [k, p[k]])) as Partial<P>;
}

/**
 * One query per shape (the columns an update sets, the length of a list), each made at its
 * first use: for the few shapes a hot statement comes in. Bounded: past `max` shapes a new
 * one is made each call and not kept.
 */
export function perShape<Q>(make: (shape: string) => Q, max = 32): (shape: string) => Q {
  const made = new Map<string, Q>();
  return (shape) => {
    let q = made.get(shape);
    if (q === undefined) {
      q = make(shape);
      if (made.size < max) made.set(shape, q);
    }
    return q;
  };
}
