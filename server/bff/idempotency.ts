import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorItems, type ErrorItem } from '../lib/http';
import { sha256Hex } from '../lib/secrets';
import { changesOf, precompiled } from '../lib/precompiled';
import { readsSettled, withoutWaitingForDisk } from '../lib/db-sync';
import type { BffKysely } from './db';

/** A stored answer: what the route replies, and replays for the same key. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

export type IdempotentOutcome =
  | { kind: 'fresh'; answer: StoredAnswer }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'conflict'; status: 409 | 422; items: ErrorItem[] };

/** Stable JSON (sorted keys), so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{8,100}$/;

/** The longest resource id a key is kept for (`idempotency_keys.session_id`). */
const RESOURCE_ID_MAX = 64;

/** How long a key and its stored answer are kept: a retry after that is a new request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a key may wait for its first request's answer: past this, that request stopped with
 * its process (a crash, a kill) and a retry with the same body takes the key over instead of
 * being told, for a day, that it is still running. Far beyond any request's run (a handful of
 * gateway calls, each bounded by `GATEWAY_TIMEOUT_MS`); and a retry that ran the work twice
 * would still be safe: a pay is serialized by its session's claim, and the other keyed POSTs
 * (expire, redeliver, cancel a subscription) are idempotent by themselves; a session created
 * twice leaves the first, never answered, to expire.
 */
export const IDEMPOTENCY_STALE_MS = 15 * 60 * 1000;

/** Deletes the keys older than `IDEMPOTENCY_TTL_MS` (the maintenance round). */
export async function pruneIdempotencyKeys(db: BffKysely, now: Date): Promise<number> {
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString())
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

interface KeyWhere {
  session_id: string;
  scope: string;
  key: string;
}

/**
 * The claim in one statement: the key is taken, or a key past its lifetime (not pruned yet) is
 * taken over as a new request, or one whose first request with this body never answered
 * (`IDEMPOTENCY_STALE_MS`) is taken over to run again; a live key changes nothing.
 */
const claimQ = precompiled(
  (
    db: BffKysely,
    p: KeyWhere & { request_hash: string; created_at: string; expired: string; stale: string },
  ) => {
    const fresh = {
      request_hash: p.request_hash,
      state: 'pending',
      response_status: null,
      response_body: null,
      created_at: p.created_at,
    };
    return db
      .insertInto('idempotency_keys')
      .values({ session_id: p.session_id, scope: p.scope, key: p.key, ...fresh })
      .onConflict((oc) =>
        oc
          .columns(['session_id', 'scope', 'key'])
          .doUpdateSet(fresh)
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.created_at', '<', p.expired),
              eb.and([
                eb('idempotency_keys.state', '=', 'pending'),
                eb('idempotency_keys.request_hash', '=', p.request_hash),
                eb('idempotency_keys.created_at', '<', p.stale),
              ]),
            ]),
          ),
      );
  },
);

/**
 * The answer, stored only under the claim that ran the work (`created_at` is the claim's own):
 * a request that outlived `IDEMPOTENCY_STALE_MS` and was taken over must not overwrite the
 * answer of the request that took it over.
 */
const doneQ = precompiled(
  (
    db: BffKysely,
    p: KeyWhere & { created_at: string; response_status: number; response_body: string },
  ) =>
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: p.response_status, response_body: p.response_body })
      .where('session_id', '=', p.session_id)
      .where('scope', '=', p.scope)
      .where('key', '=', p.key)
      .where('created_at', '=', p.created_at),
);

/**
 * Lets `work` store its answer under the key inside its own last transaction (the one that
 * makes the answer true), instead of in a commit of its own afterwards. The answer kept must
 * be the very one `work` then returns; any other is stored as usual.
 */
export interface AnswerKeeper {
  keep(db: BffKysely, answer: StoredAnswer): Promise<void>;
}

/**
 * Runs `work` at most once per `(session, scope, key)` within a day. The first call stores its answer; a
 * replay with the same body gets that answer again; a call while the first still runs gets
 * 409; the same key with a different body gets 422. Only a hash of the body is kept.
 * If `work` throws, the key is released so the caller may try again.
 */
export async function runIdempotent(
  db: BffKysely,
  scope: {
    sessionId: string;
    scope: string;
    key: string;
    body: unknown;
    at: Date;
    /** The answer's body as stored (default: as answered), e.g. without a secret in it. */
    storedAs?: (body: unknown) => unknown;
  },
  work: (keeper: AnswerKeeper) => Promise<StoredAnswer>,
  retried = false,
): Promise<IdempotentOutcome> {
  const stored = (body: unknown) => JSON.stringify(scope.storedAs ? scope.storedAs(body) : body);
  const requestHash = sha256Hex(canonicalJson(scope.body));
  const where = { session_id: scope.sessionId, scope: scope.scope, key: scope.key };
  // Names this claim: a takeover after `IDEMPOTENCY_STALE_MS` writes another time.
  const claimedAt = scope.at.toISOString();
  const claim = claimQ(db, {
    ...where,
    request_hash: requestHash,
    created_at: claimedAt,
    expired: new Date(scope.at.getTime() - IDEMPOTENCY_TTL_MS).toISOString(),
    stale: new Date(scope.at.getTime() - IDEMPOTENCY_STALE_MS).toISOString(),
  });
  // Not waited onto the disk: the commit of the work that acts on the claim (a pay's claim of
  // its session) syncs it too; a claim lost with nothing after it lost nothing.
  const claimed = (await withoutWaitingForDisk(db, (conn) => changesOf(conn, claim))) === 1;
  if (!claimed) {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('session_id', '=', where.session_id)
      .where('scope', '=', where.scope)
      .where('key', '=', where.key)
      .executeTakeFirst();
    // Claimed and released (a failed first call) between our insert and this read: once more.
    if (!row && retried) throw new Error('idempotency key claimed and released twice in a row');
    if (!row) return runIdempotent(db, scope, work, true);
    if (row.request_hash !== requestHash) {
      return {
        kind: 'conflict',
        status: 422,
        items: [
          {
            tag: 'Idempotency-Key',
            description: 'Idempotency-Key: already used with a different request body',
          },
        ],
      };
    }
    if (row.state !== 'done' || row.response_status === null) {
      return {
        kind: 'conflict',
        status: 409,
        items: [
          {
            tag: 'Idempotency-Key',
            description: 'Idempotency-Key: a request with this key is still being processed',
          },
        ],
      };
    }
    // The answer may have committed a moment ago, its fsync still running: not shown before.
    await readsSettled(db);
    return {
      kind: 'replay',
      answer: {
        status: row.response_status,
        body: row.response_body === null ? null : (JSON.parse(row.response_body) as unknown),
      },
    };
  }
  let kept: StoredAnswer | undefined;
  const keeper: AnswerKeeper = {
    async keep(tx, a) {
      await tx.executeQuery(
        doneQ(tx, {
          ...where,
          created_at: claimedAt,
          response_status: a.status,
          response_body: stored(a.body),
        }),
      );
      kept = a;
    },
  };
  let answer: StoredAnswer;
  try {
    answer = await work(keeper);
  } catch (err) {
    // Released only if still this claim: one taken over meanwhile belongs to a live request.
    await db
      .deleteFrom('idempotency_keys')
      .where('session_id', '=', where.session_id)
      .where('scope', '=', where.scope)
      .where('key', '=', where.key)
      .where('created_at', '=', claimedAt)
      .execute();
    throw err;
  }
  // Kept in the transaction that produced it: the same object, so the same status and body.
  if (kept !== undefined && kept.body === answer.body && kept.status === answer.status) {
    return { kind: 'fresh', answer };
  }
  await db.executeQuery(
    doneQ(db, {
      ...where,
      created_at: claimedAt,
      response_status: answer.status,
      response_body: stored(answer.body),
    }),
  );
  return { kind: 'fresh', answer };
}

/** An answer not to keep under its key (a 5xx): the key is released for a retry. */
class NotKept extends Error {
  constructor(readonly answer: StoredAnswer) {
    super('not kept');
  }
}

/**
 * A merchant-API POST with Stripe's `Idempotency-Key` semantics, keyed per resource and
 * action: without a key the work just runs; with one, the first answer (not a 5xx) is kept a
 * day and replayed (`Idempotent-Replayed: true`), 409 while the first still runs, 422 for the
 * same key with another body.
 */
export async function idempotentPost(
  db: BffKysely,
  c: Context,
  where: { resource: string; action: string; body: unknown; at: Date },
  work: () => Promise<StoredAnswer>,
): Promise<Response> {
  const key = c.req.header('idempotency-key');
  const reply = (a: StoredAnswer) => c.json(a.body, a.status as ContentfulStatusCode);
  if (key === undefined) return reply(await work());
  if (!IDEMPOTENCY_KEY.test(key)) {
    return c.json(
      errorItems(
        'Idempotency-Key',
        'Idempotency-Key: 8 to 100 characters of letters, digits, _ . : -',
      ),
      400,
    );
  }
  // No resource has a longer id (the key's column holds 64): its work answers 404 without a
  // key's row (PostgreSQL would refuse the row: a 500).
  if (where.resource.length > RESOURCE_ID_MAX) return reply(await work());
  const out = await runIdempotent(
    db,
    { sessionId: where.resource, scope: where.action, key, body: where.body, at: where.at },
    async () => {
      const answer = await work();
      if (answer.status >= 500) throw new NotKept(answer);
      return answer;
    },
  ).catch((err: unknown) => {
    if (err instanceof NotKept) return err.answer;
    throw err;
  });
  if (!('kind' in out)) return reply(out);
  if (out.kind === 'conflict') return c.json(out.items, out.status);
  if (out.kind === 'replay') c.header('Idempotent-Replayed', 'true');
  return reply(out.answer);
}
